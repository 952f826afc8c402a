'use client';

import { SlidersHorizontal, Trash2 } from 'lucide-react';

import { Button } from '@/app/_components/ui';

/*
 * What a personal access token's row and a connected client's row share on the Account page (both
 * are token rows): the tools it exposes on /mcp, and its Tools and Revoke buttons.
 */

/** `agentTool`: Switchboard's own agent is offered too (`switchboard_ask`, lib/gateway/ask-tool.ts). */
export function ExposedTools({ tools, agentTool = false, testId }: { tools: string[]; agentTool?: boolean; testId: string }) {
  return (
    <p className="mt-1 text-xs leading-5 break-words text-muted" data-testid={testId}>
      {tools.length === 0 ? (
        'Exposes no tools'
      ) : (
        <>
          Exposes <span className="font-mono">{tools.join(', ')}</span>
        </>
      )}
      {agentTool && ", and Switchboard's agent (switchboard_ask)"}
    </p>
  );
}

export function ExposureActions({ name, onTools, onRevoke }: { name: string; onTools: () => void; onRevoke: () => void }) {
  return (
    <>
      <Button size="sm" variant="ghost" icon={SlidersHorizontal} aria-label={`Tools of ${name}`} onClick={onTools}>
        Tools
      </Button>
      <Button size="sm" variant="danger-subtle" icon={Trash2} aria-label={`Revoke ${name}`} onClick={onRevoke}>
        Revoke
      </Button>
    </>
  );
}
