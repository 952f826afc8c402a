'use client';

import { FileText, X } from 'lucide-react';
import { createContext, useContext, useEffect, useMemo, useRef } from 'react';

import type { ComposerAttachment } from './composer-offers';

type Attach = (attachment: ComposerAttachment) => void;
type AttachHub = { register: (attach: Attach) => () => void; attach: Attach };

const AttachContext = createContext<AttachHub | null>(null);

/**
 * Lets something in the conversation put a resource into the composer (a tool result's resource
 * link: "Attach"), as composer-draft.tsx does for text. The mounted composer registers.
 */
export function ComposerAttachProvider({ children }: { children: React.ReactNode }) {
  const current = useRef<Attach | null>(null);
  const hub = useMemo<AttachHub>(
    () => ({
      register(attach) {
        current.current = attach;
        return () => {
          if (current.current === attach) current.current = null;
        };
      },
      attach: (a) => current.current?.(a),
    }),
    [],
  );
  return <AttachContext.Provider value={hub}>{children}</AttachContext.Provider>;
}

/** Null where no composer can take attachments (a shared page). */
export function useAttachToComposer(): Attach | null {
  return useContext(AttachContext)?.attach ?? null;
}

/** The composer takes attachments from elsewhere while it is mounted. */
export function useAcceptAttachments(attach: Attach) {
  const hub = useContext(AttachContext);
  const latest = useRef(attach);
  useEffect(() => {
    latest.current = attach;
  });
  useEffect(() => hub?.register((a) => latest.current(a)), [hub]);
}

/** The resources attached to the message being written, each with its server, removable. */
export function AttachmentChips({ attachments, onRemove }: { attachments: ComposerAttachment[]; onRemove: (index: number) => void }) {
  if (attachments.length === 0) return null;
  return (
    <ul className="flex flex-wrap gap-1.5 px-1 pb-2 pt-0.5" aria-label="Attached resources">
      {attachments.map((a, i) => (
        <li
          key={`${'serverId' in a.ref ? a.ref.serverId : a.ref.toolCallId}/${a.ref.uri}`}
          className="flex max-w-full items-center gap-1.5 rounded-control border border-border bg-surface-sunken py-1 pl-2 pr-1 text-xs"
          data-testid="attachment-chip"
        >
          <FileText className="size-3.5 shrink-0 text-muted" aria-hidden />
          <span className="min-w-0 truncate font-medium text-fg" title={a.ref.uri}>
            {a.label}
          </span>
          <span className="shrink-0 text-faint">· {a.serverName}</span>
          <button
            type="button"
            onClick={() => onRemove(i)}
            className="ml-0.5 grid size-5 shrink-0 place-items-center rounded text-muted hover:bg-surface-hover hover:text-fg"
            aria-label={`Remove ${a.label}`}
            title="Remove"
          >
            <X className="size-3.5" aria-hidden />
          </button>
        </li>
      ))}
    </ul>
  );
}
