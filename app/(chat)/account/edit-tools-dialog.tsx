'use client';

import { useState } from 'react';

import { api, ApiError } from '@/app/_components/api';
import { ToolPicker } from '@/app/_components/mcp-clients/tool-picker';
import { Button, Dialog, HintedSwitch, Notice } from '@/app/_components/ui';
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
      <HintedSwitch
        checked={agentTool}
        onChange={setAgentTool}
        label="Offer Switchboard's agent as a tool"
        className="mt-4"
        hint={
          <>
            The client gets switchboard_ask: it starts a conversation here with your model and instructions, using only the tools ticked
            above, and gets the final answer. Calls that need approval wait for you in that conversation. Its conversations are marked with
            the client&apos;s name.
          </>
        }
      />
      <HintedSwitch
        checked={askInClient}
        onChange={setAskInClient}
        label="Also ask me in the client's own window"
        className="mt-4"
        hint={
          <>
            A call that needs your approval always waits in Other clients. With this on, a client that can ask its user (MCP elicitation)
            asks there too, and the answer given there counts. Only for a client you watch: an agent running on its own could answer for
            you.
          </>
        }
      />
      <HintedSwitch
        checked={ownNames}
        onChange={setOwnNames}
        label="Use the tools' own names"
        className="mt-4"
        hint={
          <>
            The client sees search rather than server__search, for an agent written against one server. Only while no two exposed tools or
            prompts share a name; otherwise every name keeps its server prefix.
          </>
        }
      />
      <HintedSwitch
        checked={content}
        onChange={setContent}
        label="Also share these servers' resources and prompts"
        className="mt-4"
        hint={
          <>
            The client can then list and read everything the servers of the tools above offer as resources and prompts — for Notes, every
            one of your notes — without asking you and without an entry in your activity log. Off: it only sees and calls the tools.
          </>
        }
      />
      {error && (
        <Notice tone="error" className="mt-3">
          {error}
        </Notice>
      )}
    </Dialog>
  );
}
