'use client';

import { Building2, KeyRound, ListChecks, LogIn, Pencil, Plus, Server, Trash2, UserRound } from 'lucide-react';
import { useCallback, useEffect, useState } from 'react';

import { api, ApiError } from '@/app/_components/api';
import { STATUS } from '@/app/_components/servers/server-view';
import { ToolList } from '@/app/_components/servers/tool-list';
import {
  Badge,
  Button,
  Card,
  CardBody,
  CardFooter,
  CardHeader,
  ConfirmDialog,
  Field,
  Input,
  Notice,
  Select,
  Spinner,
  Switch,
} from '@/app/_components/ui';
import { useBusyAction } from '@/app/_components/use-busy-action';
import type { OrgServerAuth } from '@/db/vocabulary';
import type { OrgServerAdminView } from '@/lib/servers/org-servers';

import { CredentialDialog, RenameDialog } from './shared-server-dialogs';

const AUTH_LABEL: Record<OrgServerAuth, string> = {
  oauth: 'Each member signs in with their own account (OAuth)',
  shared: 'One credential the organization keeps (a header, such as an API key)',
};

type FieldErrors = Partial<Record<'name' | 'url' | 'auth' | 'headers' | 'required' | 'form', string>>;

/** Where an API error belongs in the add form: under its field, else above the buttons. */
function errorsOf(err: unknown): FieldErrors {
  if (!(err instanceof ApiError)) return { form: 'Could not add the server. Try again.' };
  const field = err.field?.split('.')[0];
  return field && ['name', 'url', 'auth', 'headers', 'required'].includes(field) ? { [field]: err.message } : { form: err.message };
}

/** The organization's shared servers (owners and admins): add one, connect to review its tools, approve them for members, remove. */
export function SharedServers({ orgId }: { orgId: string }) {
  const [servers, setServers] = useState<OrgServerAdminView[] | null>(null);
  const [loadError, setLoadError] = useState('');
  const load = useCallback(
    () =>
      api<{ servers: OrgServerAdminView[] }>(`/api/orgs/${orgId}/servers`).then(
        (r) => (setServers(r.servers), setLoadError('')),
        (err) => setLoadError(err instanceof ApiError ? err.message : 'Could not load the shared servers.'),
      ),
    [orgId],
  );
  useEffect(() => {
    void load();
  }, [load]);
  const replace = (s: OrgServerAdminView) => setServers((all) => all && all.map((x) => (x.id === s.id ? s : x)));

  return (
    <div className="space-y-4" data-testid="shared-servers">
      {loadError && <Notice tone="error">{loadError}</Notice>}
      {!servers && !loadError && <Spinner size="sm" label="Loading shared servers" />}
      {servers?.length === 0 && <p className="text-sm text-faint">No shared servers yet.</p>}
      {servers?.map((s) => (
        <SharedServerCard
          key={s.id}
          orgId={orgId}
          server={s}
          onChange={replace}
          onRemoved={() => setServers((all) => all && all.filter((x) => x.id !== s.id))}
        />
      ))}
      <AddSharedServer orgId={orgId} onAdded={(s) => setServers((all) => [...(all ?? []), s])} />
    </div>
  );
}

function AddSharedServer({ orgId, onAdded }: { orgId: string; onAdded: (s: OrgServerAdminView) => void }) {
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [auth, setAuth] = useState<OrgServerAuth>('oauth');
  const [headerName, setHeaderName] = useState('Authorization');
  const [headerValue, setHeaderValue] = useState('');
  const [required, setRequired] = useState(true);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    try {
      const body = { name, url, auth, required, ...(auth === 'shared' && { headers: { [headerName]: headerValue } }) };
      const { server } = await api<{ server: OrgServerAdminView }>(`/api/orgs/${orgId}/servers`, { method: 'POST', body });
      onAdded(server);
      setName('');
      setUrl('');
      setHeaderValue('');
    } catch (err) {
      setErrors(errorsOf(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form
      onSubmit={(e) => void submit(e)}
      className="space-y-3 rounded-card border border-dashed border-border-strong p-4"
      data-testid="add-shared-server"
    >
      <h3 className="text-sm font-semibold">Add a shared server</h3>
      <div className="grid gap-3 sm:grid-cols-2">
        <Field label="Name" error={errors.name} id="shared-name">
          <Input value={name} onChange={(e) => setName(e.target.value)} placeholder="Issue tracker" required />
        </Field>
        <Field label="URL" error={errors.url} id="shared-url">
          <Input value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://mcp.example.com/mcp" required />
        </Field>
      </div>
      <Field label="How members sign in to it" error={errors.auth} id="shared-auth">
        <Select value={auth} onChange={(e) => setAuth(e.target.value as OrgServerAuth)}>
          {(Object.keys(AUTH_LABEL) as OrgServerAuth[]).map((a) => (
            <option key={a} value={a}>
              {AUTH_LABEL[a]}
            </option>
          ))}
        </Select>
      </Field>
      {auth === 'shared' && (
        <div className="grid gap-3 sm:grid-cols-2">
          <Field label="Header name" id="shared-header-name">
            <Input value={headerName} onChange={(e) => setHeaderName(e.target.value)} />
          </Field>
          <Field
            label="Header value"
            id="shared-header-value"
            error={errors.headers}
            hint="Stored encrypted; never shown again, and never sent to members' browsers."
          >
            <Input type="password" autoComplete="off" value={headerValue} onChange={(e) => setHeaderValue(e.target.value)} />
          </Field>
        </div>
      )}
      <div className="flex items-center gap-3">
        <Switch checked={required} onChange={setRequired} label="Required for every member" />
        <span className="text-sm">
          Required for every member <span className="text-faint">(off: each member turns it on)</span>
        </span>
      </div>
      {errors.required && <Notice tone="error">{errors.required}</Notice>}
      {errors.form && <Notice tone="error">{errors.form}</Notice>}
      <Button type="submit" variant="primary" icon={Plus} loading={busy}>
        Add shared server
      </Button>
    </form>
  );
}

function SharedServerCard({
  orgId,
  server,
  onChange,
  onRemoved,
}: {
  orgId: string;
  server: OrgServerAdminView;
  onChange: (s: OrgServerAdminView) => void;
  onRemoved: () => void;
}) {
  const { busy, error, act } = useBusyAction<'connect' | 'review' | 'required' | 'remove'>();
  const [removing, setRemoving] = useState(false);
  const [editing, setEditing] = useState<null | 'rename' | 'credential'>(null);
  const headingId = `shared-${server.id}-name`;
  const mine = server.mine;
  const unreviewed = mine?.tools.filter((t) => !t.reviewed) ?? [];

  const connect = () =>
    act('connect', async () => {
      const { authorizationUrl } = await api<{ authorizationUrl: string }>(`/api/servers/${mine!.id}/oauth/start`, {
        method: 'POST',
        body: { returnTo: `/orgs/${orgId}/admin` },
      });
      if (!/^https?:\/\//i.test(authorizationUrl))
        throw new ApiError(502, 'bad_response', `Switchboard did not say where to sign in to ${server.name}.`);
      window.location.assign(authorizationUrl);
    });
  const review = () =>
    act('review', async () => {
      const tools = Object.fromEntries((mine?.tools ?? []).map((t) => [t.name, t.fingerprint]));
      onChange(
        (await api<{ server: OrgServerAdminView }>(`/api/orgs/${orgId}/servers/${server.id}/review`, { method: 'POST', body: { tools } }))
          .server,
      );
    });
  const setRequired = (required: boolean) =>
    act('required', async () => {
      onChange(
        (await api<{ server: OrgServerAdminView }>(`/api/orgs/${orgId}/servers/${server.id}`, { method: 'PATCH', body: { required } }))
          .server,
      );
    });
  const remove = () =>
    act('remove', async () => {
      await api(`/api/orgs/${orgId}/servers/${server.id}`, { method: 'DELETE' });
      setRemoving(false);
      onRemoved();
    });

  return (
    <Card as="section" aria-labelledby={headingId} data-testid="shared-server">
      <CardHeader
        icon={Server}
        title={
          <h3 id={headingId} className="text-base">
            {server.name}
          </h3>
        }
        badges={
          <>
            <Badge appearance="outline" icon={server.auth === 'oauth' ? UserRound : KeyRound}>
              {server.auth === 'oauth' ? 'own sign-in per member' : 'shared credential'}
            </Badge>
            <Badge appearance="outline" icon={Building2}>
              {server.required ? 'required' : 'optional'}
            </Badge>
            {mine && (
              <Badge tone={STATUS[mine.status].tone} data-testid="shared-status">
                {STATUS[mine.status].label}
              </Badge>
            )}
          </>
        }
        className="pt-4"
      />
      <CardBody>
        <dl className="grid grid-cols-[max-content_minmax(0,1fr)] gap-x-4 gap-y-1 text-sm">
          <dt className="text-muted">URL</dt>
          <dd className="font-mono text-[13px] break-all">{server.url}</dd>
          <dt className="text-muted">Namespace</dt>
          <dd className="font-mono text-[13px]">{server.namespace}</dd>
          {server.auth === 'shared' && (
            <>
              <dt className="text-muted">Credential</dt>
              <dd>{server.headerNames.length > 0 ? `${server.headerNames.join(', ')} (value hidden)` : 'none'}</dd>
            </>
          )}
          <dt className="text-muted">Members using it</dt>
          <dd data-testid="shared-members">{server.members}</dd>
          <dt className="text-muted">Approved tools</dt>
          <dd data-testid="shared-approved">{server.reviewedCount}</dd>
        </dl>
        {mine?.status === 'needs_sign_in' && (
          <Notice tone="warning" role="status">
            The server lists its tools only to a signed-in person: connect with your own account to review them. Members connect with
            theirs.
          </Notice>
        )}
        {unreviewed.length > 0 && (
          <div className="space-y-2" data-testid="shared-review">
            <h4 className="flex items-center gap-1.5 text-sm font-medium">
              <ListChecks className="size-4" aria-hidden /> Review: what members&rsquo; conversations will be able to use
            </h4>
            <ToolList tools={mine!.tools} label={`Tools of ${server.name} to review`} />
          </div>
        )}
        {error && <Notice tone="error">{error}</Notice>}
      </CardBody>
      <CardFooter>
        {mine?.status === 'needs_sign_in' && (
          <Button variant="primary" size="sm" icon={LogIn} loading={busy === 'connect'} onClick={() => void connect()}>
            Connect to review
          </Button>
        )}
        {unreviewed.length > 0 && (
          <Button variant="primary" size="sm" icon={ListChecks} loading={busy === 'review'} onClick={() => void review()}>
            Approve these tools for members
          </Button>
        )}
        <div className="flex items-center gap-2">
          <Switch
            checked={server.required}
            busy={busy === 'required'}
            onChange={(r) => void setRequired(r)}
            label={`${server.name} required`}
          />
          <span className="text-sm">Required</span>
        </div>
        <Button size="sm" variant="ghost" icon={Pencil} className="sm:ml-auto" onClick={() => setEditing('rename')}>
          Rename
        </Button>
        {server.auth === 'shared' && (
          <Button size="sm" variant="ghost" icon={KeyRound} onClick={() => setEditing('credential')}>
            Replace credential
          </Button>
        )}
        <Button size="sm" variant="danger-subtle" icon={Trash2} onClick={() => setRemoving(true)}>
          Remove
        </Button>
      </CardFooter>
      <ConfirmDialog
        open={removing}
        onClose={() => setRemoving(false)}
        title={`Remove “${server.name}”?`}
        description="Every member's use of it ends: its tools leave their conversations, and their sign-ins to it are forgotten."
        confirmLabel="Remove"
        tone="danger"
        busy={busy === 'remove'}
        onConfirm={() => void remove()}
      >
        {error && removing && <Notice tone="error">{error}</Notice>}
      </ConfirmDialog>
      {editing === 'rename' && <RenameDialog orgId={orgId} server={server} onClose={() => setEditing(null)} onSaved={onChange} />}
      {editing === 'credential' && <CredentialDialog orgId={orgId} server={server} onClose={() => setEditing(null)} onSaved={onChange} />}
    </Card>
  );
}
