'use client';

import { useState } from 'react';

import { api } from '@/app/_components/api';
import { Button, Dialog, Field, Input, Notice } from '@/app/_components/ui';
import { useBusyAction } from '@/app/_components/use-busy-action';
import type { OrgServerAdminView } from '@/lib/servers/org-servers';

interface EditProps {
  orgId: string;
  server: OrgServerAdminView;
  onClose: () => void;
  onSaved: (s: OrgServerAdminView) => void;
}

/** `PATCH` the shared server with `body`; the dialog closes only when it was saved. */
function usePatch({ orgId, server, onClose, onSaved }: EditProps) {
  const { busy, error, act } = useBusyAction<'save'>();
  const save = async (body: Record<string, unknown>) => {
    const saved = await act('save', async () => {
      const res = await api<{ server: OrgServerAdminView }>(`/api/orgs/${orgId}/servers/${server.id}`, { method: 'PATCH', body });
      onSaved(res.server);
    });
    if (saved) onClose();
  };
  return { busy: busy === 'save', error, save };
}

function Footer({ onClose, busy, label, form }: { onClose: () => void; busy: boolean; label: string; form: string }) {
  return (
    <>
      <Button variant="ghost" onClick={onClose}>
        Cancel
      </Button>
      <Button type="submit" form={form} variant="primary" loading={busy}>
        {label}
      </Button>
    </>
  );
}

/** A new name for the shared server: members see it (with the organization's name) at their next step. Its namespace stays. */
export function RenameDialog(props: EditProps) {
  const [name, setName] = useState(props.server.name);
  const { busy, error, save } = usePatch(props);
  const form = `rename-${props.server.id}`;
  return (
    <Dialog
      open
      onClose={props.onClose}
      title={`Rename “${props.server.name}”`}
      description="Members see the new name at their next step. The tools keep their names (its namespace does not change)."
      footer={<Footer onClose={props.onClose} busy={busy} label="Save name" form={form} />}
    >
      <form id={form} onSubmit={(e) => (e.preventDefault(), void save({ name }))}>
        <Field label="Name" id={`${form}-name`} error={error}>
          <Input value={name} onChange={(e) => setName(e.target.value)} required data-autofocus />
        </Field>
      </form>
    </Dialog>
  );
}

/**
 * A new shared credential, replacing the whole old one. The old value is never shown (the page
 * never has it: an admin's view holds header names only); each member's next call uses the new one.
 */
export function CredentialDialog(props: EditProps) {
  const [headerName, setHeaderName] = useState(props.server.headerNames[0] ?? 'Authorization');
  const [headerValue, setHeaderValue] = useState('');
  const { busy, error, save } = usePatch(props);
  const form = `credential-${props.server.id}`;
  return (
    <Dialog
      open
      onClose={props.onClose}
      title={`Replace the credential of “${props.server.name}”`}
      description="The new header replaces the old credential entirely; every member's next call uses it. The current value is never shown."
      footer={<Footer onClose={props.onClose} busy={busy} label="Replace credential" form={form} />}
    >
      <form id={form} className="space-y-3" onSubmit={(e) => (e.preventDefault(), void save({ headers: { [headerName]: headerValue } }))}>
        <Field label="Header name" id={`${form}-name`}>
          <Input value={headerName} onChange={(e) => setHeaderName(e.target.value)} required />
        </Field>
        <Field
          label="New header value"
          id={`${form}-value`}
          hint="Stored encrypted; never shown again, and never sent to members' browsers."
        >
          <Input
            type="password"
            autoComplete="off"
            value={headerValue}
            onChange={(e) => setHeaderValue(e.target.value)}
            required
            data-autofocus
          />
        </Field>
        {error && <Notice tone="error">{error}</Notice>}
      </form>
    </Dialog>
  );
}
