'use client';

type ResultBlock = { type: string; text?: string; source?: { type: string; media_type?: string; data?: string } };

/** Strips the <tool_output …> wrapper the model sees; the card already names server and tool. */
function unwrap(text: string): string {
  return text.replace(/^<tool_output[^>]*>\n?/, '').replace(/\n?<\/tool_output>\s*$/, '');
}

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

const URL_PATTERN = /(https?:\/\/[^\s"'<>]+)/g;

/** Text with its http(s) URLs as links (resource links come back as text with a uri). */
function Linkified({ text }: { text: string }) {
  const parts = text.split(URL_PATTERN);
  return (
    <>
      {parts.map((part, i) =>
        i % 2 === 1 ? (
          <a key={i} href={part} target="_blank" rel="noopener noreferrer" className="text-indigo-700 underline">
            {part}
          </a>
        ) : (
          part
        ),
      )}
    </>
  );
}

/** A tool_result's content: text (pretty JSON when it is JSON), images as images, links as links. */
export function ToolResultView({ result, isError }: { result: Record<string, unknown>; isError: boolean }) {
  const content = result.content;
  const blocks: ResultBlock[] = typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];
  return (
    <div className="space-y-2">
      {blocks.map((b, i) =>
        b.type === 'image' && b.source?.type === 'base64' ? (
          // eslint-disable-next-line @next/next/no-img-element -- a data: URL from the tool, not an optimisable asset
          <img
            key={i}
            alt="Image returned by the tool"
            src={`data:${b.source.media_type};base64,${b.source.data}`}
            className="max-h-80 rounded border border-stone-200"
          />
        ) : b.type === 'text' ? (
          <pre
            key={i}
            className={`max-h-80 overflow-auto whitespace-pre-wrap break-words rounded-md p-2 font-mono text-xs
              ${isError ? 'bg-red-50 text-red-900' : 'bg-stone-50 text-stone-800'}`}
          >
            <Linkified text={pretty(unwrap(b.text ?? ''))} />
          </pre>
        ) : (
          <p key={i} className="text-xs italic text-stone-500">
            [{b.type} content]
          </p>
        ),
      )}
    </div>
  );
}
