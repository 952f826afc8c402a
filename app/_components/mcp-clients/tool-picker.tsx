'use client';

import { Badge } from '@/app/_components/ui';
import type { PickableTool } from '@/lib/gateway/catalog';

/**
 * Which of the person's tools a token exposes to MCP clients: checkboxes grouped by server, none
 * ticked unless chosen. Says which tools run without asking and which need approval; a tool the
 * person's organization forbids is listed disabled with the organization's reason (the API refuses
 * it too, lib/gateway/profile.ts).
 */
export function ToolPicker({
  tools,
  value,
  onChange,
  idPrefix,
  labelledBy,
}: {
  tools: PickableTool[];
  value: string[];
  onChange: (next: string[]) => void;
  idPrefix: string;
  /** The id of the words that name this choice (a heading or a dialog title). */
  labelledBy?: string;
}) {
  if (tools.length === 0) {
    return <p className="text-sm text-faint">You have no tools to expose yet: add or switch on a server first.</p>;
  }
  const servers = [...new Set(tools.map((t) => t.serverName))];
  const picked = new Set(value);
  const toggle = (name: string, on: boolean) =>
    onChange(
      tools
        .filter((t) => t.refused === null)
        .map((t) => t.name)
        .filter((n) => (n === name ? on : picked.has(n))),
    );
  return (
    <div
      role="group"
      aria-labelledby={labelledBy}
      className="max-h-64 space-y-3 overflow-y-auto rounded-md border border-border p-3"
      data-testid={`${idPrefix}-tools`}
    >
      {servers.map((server) => (
        <fieldset key={server}>
          <legend className="text-xs font-semibold uppercase tracking-wide text-muted">{server}</legend>
          <ul className="mt-1 space-y-1">
            {tools
              .filter((t) => t.serverName === server)
              .map((t) => {
                const id = `${idPrefix}-${t.name}`;
                const why = `${id}-why`;
                return (
                  <li key={t.name} className="text-sm" data-testid="picker-tool" data-tool={t.name}>
                    <div className="flex items-center gap-2">
                      <input
                        id={id}
                        type="checkbox"
                        className="size-4 shrink-0 accent-accent disabled:opacity-50"
                        checked={t.refused === null && picked.has(t.name)}
                        disabled={t.refused !== null}
                        aria-describedby={t.refused ? why : undefined}
                        onChange={(e) => toggle(t.name, e.target.checked)}
                      />
                      <label htmlFor={id} className={`flex min-w-0 flex-1 flex-wrap items-center gap-x-2 ${t.refused ? 'opacity-60' : ''}`}>
                        <span className="font-mono text-[13px] break-all text-fg">{t.name}</span>
                        {t.title && <span className="text-faint">{t.title}</span>}
                      </label>
                      {t.refused ? (
                        <Badge tone="warning">not allowed</Badge>
                      ) : t.runsWithoutAsking ? (
                        <Badge tone="success">runs without asking</Badge>
                      ) : (
                        <Badge>needs approval</Badge>
                      )}
                    </div>
                    {t.refused && (
                      <p id={why} className="mt-0.5 pl-6 text-[13px] text-muted" data-testid="picker-tool-refused">
                        {t.refused}
                      </p>
                    )}
                  </li>
                );
              })}
          </ul>
        </fieldset>
      ))}
    </div>
  );
}
