// The demo model's unit of output: one word (with the whitespace after it) is
// one streamed text delta and one output token. Joining the pieces gives back
// the text exactly, so nothing is lost or added on the wire.

export function splitWords(text: string): string[] {
  const pieces: string[] = [...(text.match(/\S+\s*/g) ?? [])];
  const leading = /^\s+/.exec(text)?.[0] ?? '';
  if (leading) {
    if (pieces.length > 0) pieces[0] = leading + pieces[0];
    else pieces.push(leading);
  }
  return pieces;
}

export function countWords(text: string): number {
  return text.match(/\S+/g)?.length ?? 0;
}
