'use client';

import { Building2, Link2, Settings2 } from 'lucide-react';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';

import { api, ApiError } from '@/app/_components/api';
import { Badge, Button, buttonClasses, CardBody, CardFooter, CopyField, Field, Input, Notice } from '@/app/_components/ui';
import { ORG_ROLE_LABELS, type OrgRole } from '@/db/vocabulary';
import type { MyOrg } from '@/lib/orgs/orgs';

import { Section } from './ui';
import { When } from './when';

const MANAGES: readonly OrgRole[] = ['owner', 'admin'];

/** The organizations the person belongs to, with their role; an owner or admin makes invitation links here. */
export function OrganizationSection({ orgs }: { orgs: MyOrg[] }) {
  return (
    <Section
      id="org-heading"
      title="Organization"
      icon={Building2}
      description="What you own stays yours. An organization adds a layer above it: shared servers, a policy, what its admins see."
    >
      <CardBody className="py-1">
        {orgs.length === 0 ? (
          <p className="py-3 text-sm text-faint">
            You belong to no organization. An invitation link from an organization&rsquo;s owner or admin adds you.
          </p>
        ) : (
          <ul className="divide-y divide-border" aria-label="Your organizations" data-testid="org-list">
            {orgs.map((org) => (
              <OrgRow key={org.id} org={org} />
            ))}
          </ul>
        )}
      </CardBody>
      <NewOrgForm />
    </Section>
  );
}

/** Makes an organization the person owns; others join it only by an invitation they accept. */
function NewOrgForm() {
  const router = useRouter();
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  async function create(e: React.FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      await api('/api/orgs', { method: 'POST', body: { name } });
      setName('');
      router.refresh();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not create the organization.');
    } finally {
      setBusy(false);
    }
  }
  return (
    <CardFooter className="mt-1">
      <form onSubmit={create} className="flex w-full flex-wrap items-end gap-2">
        <Field label="New organization" id="new-org-name" className="min-w-48 flex-1" error={error || undefined}>
          <Input value={name} onChange={(e) => setName(e.target.value)} placeholder="Team name" maxLength={100} />
        </Field>
        <Button type="submit" disabled={busy || !name.trim()}>
          Create
        </Button>
      </form>
    </CardFooter>
  );
}

function OrgRow({ org }: { org: MyOrg }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [link, setLink] = useState<{ url: string; expiresAt: string } | null>(null);

  async function invite() {
    setBusy(true);
    setError('');
    try {
      setLink(await api<{ url: string; expiresAt: string }>(`/api/orgs/${org.id}/invitations`, { method: 'POST' }));
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not create the invitation link.');
    } finally {
      setBusy(false);
    }
  }

  const manages = MANAGES.includes(org.role);
  return (
    <li className="space-y-3 py-3">
      <div className="flex flex-wrap items-center gap-3">
        <div className="min-w-0 flex-1">
          <p className="flex flex-wrap items-center gap-2 text-sm font-medium text-fg">
            <span className="min-w-0 break-words">{org.name}</span>
            <Badge>{ORG_ROLE_LABELS[org.role]}</Badge>
          </p>
          <p className="mt-0.5 text-xs leading-5 text-faint">
            {org.joinDomain
              ? `People who sign in by single sign-on with a verified @${org.joinDomain} address join as members.`
              : 'People join by invitation link.'}
          </p>
          <p className="mt-0.5 text-xs leading-5 text-faint" data-testid="org-sees">
            Owners and admins see each member&rsquo;s usage and which tools they called (server, tool, outcome, time) from when they joined;
            never the arguments or results, which stay in the member&rsquo;s conversations.
          </p>
        </div>
        {manages && (
          <Link href={`/orgs/${org.id}/admin`} className={buttonClasses({ size: 'sm', variant: 'ghost' })} data-testid="org-admin-link">
            <Settings2 className="size-4 shrink-0" aria-hidden />
            Manage
          </Link>
        )}
        {manages && (
          <Button size="sm" onClick={invite} disabled={busy}>
            <Link2 className="size-4 shrink-0" aria-hidden />
            {link ? 'Create another link' : 'Create invitation link'}
          </Button>
        )}
      </div>
      {error && (
        <Notice tone="error" role="alert">
          {error}
        </Notice>
      )}
      {link && (
        <div data-testid="invitation-link">
          <CopyField label="Invitation link" id={`invite-${org.id}`} value={link.url} copyLabel="Copy invitation link" />
          <p className="mt-1.5 text-xs text-faint">
            Works once, for one person, as a member; expires <When iso={link.expiresAt} />. Only a fingerprint of it is kept.
          </p>
        </div>
      )}
    </li>
  );
}
