'use client';

import { Paperclip } from 'lucide-react';
import { useState } from 'react';

import { resourceLinksIn } from '@/lib/mcp/resource-links';
import type { ResultView } from '@/lib/mcp/result-view';

import { useAttachToComposer } from '../composer/attachment-chips';
import { ImageLightbox } from '../files/image-lightbox';
import { Button, CodeBlock } from '../ui/index';

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
          <a key={i} href={part} target="_blank" rel="noopener noreferrer" className="text-accent-text underline underline-offset-2">
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

/**
 * A tool's result as the server sent it (pretty JSON when it is JSON), its images as images, and
 * what Switchboard added (a cut, an error sentence, a note) apart from it.
 */
export function ToolResultView({ result, attachFrom }: { result: ResultView; attachFrom?: { toolCallId: string; serverName: string } }) {
  const attach = useAttachToComposer();
  const tone = result.isError ? 'danger' : 'default';
  const label = result.isError ? 'Error' : 'Result';
  return (
    <div className="space-y-2">
      {result.parts.map((p, i) =>
        p.kind === 'image' ? (
          <ResultImage key={i} src={`data:${p.mediaType};base64,${p.data}`} />
        ) : p.kind === 'output' ? (
          <div key={i} className="space-y-1.5">
            <CodeBlock label={i === 0 ? label : undefined} tone={tone} wrap maxHeight="md">
              <Linkified text={pretty(p.text)} />
            </CodeBlock>
            {/* A resource the tool linked to can go into the next message, read from the same server. */}
            {attach && attachFrom && (
              <div className="flex flex-wrap gap-1.5">
                {resourceLinksIn(p.text).map((link) => (
                  <Button
                    key={link.uri}
                    size="sm"
                    variant="secondary"
                    icon={Paperclip}
                    title={link.uri}
                    onClick={() =>
                      attach({
                        ref: { toolCallId: attachFrom.toolCallId, uri: link.uri },
                        serverName: attachFrom.serverName,
                        label: link.name,
                      })
                    }
                  >
                    Attach {link.name}
                  </Button>
                ))}
              </div>
            )}
          </div>
        ) : (
          <p key={i} className={`whitespace-pre-wrap text-xs ${result.isError ? 'text-danger-text' : 'italic text-muted'}`}>
            {p.text}
          </p>
        ),
      )}
      {result.truncated && (
        <p className="text-xs text-muted">The whole result is {size(result.chars)}; the model saw the first part and can read the rest.</p>
      )}
    </div>
  );
}

/** An image from a tool: a thumbnail that opens full size, as a person's own images do (a data: URL cannot open in a tab). */
function ResultImage({ src }: { src: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        onClick={() => setOpen(true)}
        className="block rounded-control"
        aria-label="Open the tool's image full size"
        title="Enlarge the image"
        data-testid="tool-image"
      >
        {/* eslint-disable-next-line @next/next/no-img-element -- a data: URL from the tool, not an optimisable asset */}
        <img alt="Image returned by the tool" src={src} className="max-h-60 rounded-control border border-border" />
      </button>
      <ImageLightbox
        open={open}
        onClose={() => setOpen(false)}
        src={src}
        alt="Image returned by the tool, full size"
        title="Image returned by the tool"
      />
    </>
  );
}
