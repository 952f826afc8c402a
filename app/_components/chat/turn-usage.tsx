import type { TurnUsageView } from '@/lib/chat/views';

const count = (n: number) => n.toLocaleString('en');

/** The figures of a turn's tokens, as read under its answer: input (all of it, cached or not), output, read from the cache. */
export function turnUsageFigures(u: TurnUsageView): { line: string; title: string } {
  const input = u.inputTokens + u.cacheCreationInputTokens + u.cacheReadInputTokens;
  const parts = [`${count(input)} in`, `${count(u.outputTokens)} out`];
  if (u.cacheReadInputTokens) parts.push(`${count(u.cacheReadInputTokens)} cached`);
  const title =
    `Tokens of this turn, over all its model calls: ${count(input)} read by the model ` +
    `(${count(u.cacheReadInputTokens)} of them from the prompt cache, ${count(u.cacheCreationInputTokens)} written to it), ` +
    `${count(u.outputTokens)} written.`;
  return { line: parts.join(' · '), title };
}

/** A small, quiet line under a finished turn's answer: what the turn cost in tokens. */
export function TurnUsage({ usage }: { usage: TurnUsageView }) {
  const { line, title } = turnUsageFigures(usage);
  return (
    <p className="text-xs tabular-nums text-faint" title={title} data-testid="turn-usage">
      <span className="sr-only">Tokens: </span>
      {line}
    </p>
  );
}
