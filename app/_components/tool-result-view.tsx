'use client';

import type { ResultView } from '@/lib/mcp/result-view';

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

function size(chars: number): string {
  return chars < 1000 ? `${chars} characters` : `${(chars / 1000).toFixed(chars < 10_000 ? 1 : 0)}k characters`;
}

/** A tool's result as the server sent it (pretty JSON when it is JSON), images as images, Switchboard's notes apart. */
export function ToolResultView({ result }: { result: ResultView }) {
  const tone = result.isError ? 'bg-red-50 text-red-900' : 'bg-stone-50 text-stone-800';
  return (
    <div className="space-y-2">
      {result.parts.map((p, i) =>
        p.kind === 'image' ? (
          // eslint-disable-next-line @next/next/no-img-element -- a data: URL from the tool, not an optimisable asset
          <img key={i} alt="Image returned by the tool" src={`data:${p.mediaType};base64,${p.data}`} className="max-h-80 rounded border" />
        ) : p.kind === 'output' ? (
          <pre key={i} className={`max-h-80 overflow-auto whitespace-pre-wrap break-words rounded-md p-2 font-mono text-xs ${tone}`}>
            <Linkified text={pretty(p.text)} />
          </pre>
        ) : (
          <p key={i} className={`whitespace-pre-wrap text-xs ${result.isError ? 'text-red-800' : 'italic text-stone-500'}`}>
            {p.text}
          </p>
        ),
      )}
      {result.truncated && (
        <p className="text-xs text-stone-500">
          The whole result is {size(result.chars)}; the model saw the first part and can read the rest.
        </p>
      )}
    </div>
  );
}
