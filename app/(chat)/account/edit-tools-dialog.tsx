'use client';

import { useId, useState } from 'react';

import { api, ApiError } from '@/app/_components/api';
import { ToolPicker } from '@/app/_components/mcp-clients/tool-picker';
import { Button, Dialog, Notice, Switch } from '@/app/_components/ui';
import type { AccessTokenView } from '@/lib/account/access-tokens';
import type { PickableTool } from '@/lib/gateway/catalog';

/**
 * Changes which tools a token exposes (PATCH, the whole list), whether a call that needs approval
 * is also asked in the client's own window, whether the client sees the servers' own names,
 * whether it reads those servers' resources and prompts too, and whether Switchboard's own agent is
 * offered to it as a tool; a client using it sees the change at its next request.
 */
export function EditToolsDialog({
  token,
  tools,
  onClose,
  onSaved,
}: {
  /** A personal token or a connected client (both are token rows). */
  token: Pick<AccessTokenView, 'id' | 'name' | 'tools' | 'askInClient' | 'ownNames' | 'content' | 'agentTool'>;
  tools: PickableTool[];
  onClose: () => void;
  onSaved: () => Promise<void>;
}) {
  // A name picked earlier whose tool is gone (server switched off) or that the organization now
  // forbids cannot be kept (the API refuses it): it is dropped on save.
  const [value, setValue] = useState(token.tools.filter((n) => tools.some((t) => t.name === n && t.refused === null)));
  const [askInClient, setAskInClient] = useState(token.askInClient);
  const [ownNames, setOwnNames] = useState(token.ownNames);
  const [content, setContent] = useState(token.content);
  const [agentTool, setAgentTool] = useState(token.agentTool);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const askHint = useId();
  const namesHint = useId();
  const contentHint = useId();
  const agentHint = useId();

  async function save() {
    setBusy(true);
    setError('');
    try {
      await api(`/api/account/tokens/${token.id}`, { method: 'PATCH', body: { tools: value, askInClient, ownNames, content, agentTool } });
      await onSaved();
      onClose();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not save the tools.');
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog
      open
      onClose={onClose}
      title={`Tools “${token.name}” exposes`}
      description="An MCP client using this token sees and calls only these, under your consent rules."
      footer={
        <>
          <Button variant="ghost" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={() => void save()} loading={busy}>
            Save
          </Button>
        </>
      }
    >
      <ToolPicker tools={tools} value={value} onChange={setValue} idPrefix={`edit-${token.id}`} />
      <div className="mt-4 flex items-start gap-3">
        <Switch
          checked={agentTool}
          onChange={setAgentTool}
          label="Offer Switchboard's agent as a tool"
          aria-describedby={agentHint}
          className="mt-0.5"
        />
        <div className="min-w-0">
          <p className="text-sm font-medium text-fg">Offer Switchboard&apos;s agent as a tool</p>
          <p id={agentHint} className="text-[13px] text-muted">
            The client gets switchboard_ask: it starts a conversation here with your model and instructions, using only the tools ticked
            above, and gets the final answer. Calls that need approval wait for you in that conversation. Its conversations are marked with
            the client&apos;s name.
          </p>
        </div>
      </div>
      <div className="mt-4 flex items-start gap-3">
        <Switch
          checked={askInClient}
          onChange={setAskInClient}
          label="Also ask me in the client's own window"
          aria-describedby={askHint}
          className="mt-0.5"
        />
        <div className="min-w-0">
          <p className="text-sm font-medium text-fg">Also ask me in the client&apos;s own window</p>
          <p id={askHint} className="text-[13px] text-muted">
            A call that needs your approval always waits in Other clients. With this on, a client that can ask its user (MCP elicitation)
            asks there too, and the answer given there counts. Only for a client you watch: an agent running on its own could answer for
            you.
          </p>
        </div>
      </div>
      <div className="mt-4 flex items-start gap-3">
        <Switch
          checked={ownNames}
          onChange={setOwnNames}
          label="Use the tools' own names"
          aria-describedby={namesHint}
          className="mt-0.5"
        />
        <div className="min-w-0">
          <p className="text-sm font-medium text-fg">Use the tools&apos; own names</p>
          <p id={namesHint} className="text-[13px] text-muted">
            The client sees search rather than server__search, for an agent written against one server. Only while no two exposed tools or
            prompts share a name; otherwise every name keeps its server prefix.
          </p>
        </div>
      </div>
      <div className="mt-4 flex items-start gap-3">
        <Switch
          checked={content}
          onChange={setContent}
          label="Also share these servers' resources and prompts"
          aria-describedby={contentHint}
          className="mt-0.5"
        />
        <div className="min-w-0">
          <p className="text-sm font-medium text-fg">Also share these servers&apos; resources and prompts</p>
          <p id={contentHint} className="text-[13px] text-muted">
            The client can then list and read everything the servers of the tools above offer as resources and prompts — for Notes, every
            one of your notes — without asking you and without an entry in your activity log. Off: it only sees and calls the tools.
          </p>
        </div>
      </div>
      {error && (
        <Notice tone="error" className="mt-3">
          {error}
        </Notice>
      )}
    </Dialog>
  );
}
