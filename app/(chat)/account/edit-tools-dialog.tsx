'use client';

import { useState } from 'react';

import { api, ApiError } from '@/app/_components/api';
import { ToolPicker } from '@/app/_components/mcp-clients/tool-picker';
import { Button, Dialog, Notice } from '@/app/_components/ui';
import type { AccessTokenView } from '@/lib/account/access-tokens';
import type { PickableTool } from '@/lib/gateway/catalog';

/** Changes which tools a token exposes (PATCH, the whole list); a client using it sees the change at its next request. */
export function EditToolsDialog({
  token,
  tools,
  onClose,
  onSaved,
}: {
  /** A personal token or a connected client (both are token rows). */
  token: Pick<AccessTokenView, 'id' | 'name' | 'tools'>;
  tools: PickableTool[];
  onClose: () => void;
  onSaved: () => Promise<void>;
}) {
  // A name picked earlier whose tool is gone (server switched off) cannot be kept: it is dropped on save.
  const [value, setValue] = useState(token.tools.filter((n) => tools.some((t) => t.name === n)));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');

  async function save() {
    setBusy(true);
    setError('');
    try {
      await api(`/api/account/tokens/${token.id}`, { method: 'PATCH', body: { tools: value } });
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
            Save tools
          </Button>
        </>
      }
    >
      <ToolPicker tools={tools} value={value} onChange={setValue} idPrefix={`edit-${token.id}`} />
      {error && (
        <Notice tone="error" className="mt-3">
          {error}
        </Notice>
      )}
    </Dialog>
  );
}
