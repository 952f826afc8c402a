import { Activity, ScrollText, Server, Shield, Users } from 'lucide-react';
import type { Metadata } from 'next';
import { notFound } from 'next/navigation';

import { AuditTable } from '@/app/_components/org-admin/audit-table';
import { MembersTable } from '@/app/_components/org-admin/members-table';
import { PolicyForm } from '@/app/_components/org-admin/policy-form';
import { SharedServers } from '@/app/_components/org-admin/shared-servers';
import { CardBody } from '@/app/_components/ui';
import { AppError } from '@/lib/http/errors';
import { orgAdminPage } from '@/lib/orgs/admin';
import { requirePageSession } from '@/lib/server/page-session';
import { getRuntime } from '@/lib/server/runtime';

import { Section } from '../../../account/ui';

export const metadata: Metadata = { title: 'Organization · Switchboard' };
export const dynamic = 'force-dynamic';

const POLICY_WORDS =
  'What members may use, above their own choices. A change applies at the next step of every running conversation and ' +
  'suspends what it no longer allows; members see the reason in their Tools panel.';
const SHARED_WORDS =
  'Servers added once for every member. You review their tools; members see them on their servers page, named for the ' +
  'organization, and cannot change them. Grants, approvals and the policy apply to them as to any server.';
const AUDIT_WORDS =
  "Members' tool calls: who, when, which server and tool, the outcome. " +
  'Arguments and results stay with each member and are never shown here.';

/** An organization's admin page (owners and admins): members and roles, policy, usage per member, and the audit view. */
export default async function OrgAdminPage({ params }: { params: Promise<{ id: string }> }) {
  const session = await requirePageSession();
  const rt = await getRuntime();
  const { id } = await params;
  let page: Awaited<ReturnType<typeof orgAdminPage>>;
  try {
    page = await orgAdminPage(rt.handle.db, id, session.user.id);
  } catch (err) {
    if (err instanceof AppError && err.type === 'not_found') notFound();
    if (err instanceof AppError && err.type === 'forbidden') {
      return (
        <div className="mx-auto max-w-2xl px-4 py-12">
          <h1 className="text-2xl font-semibold tracking-tight">Organization</h1>
          <p className="mt-2 text-[15px] text-muted" data-testid="admin-forbidden">
            {err.message}
          </p>
        </div>
      );
    }
    throw err;
  }
  const fmt = new Intl.NumberFormat('en');
  return (
    <div className="h-full overflow-y-auto">
      <div className="mx-auto max-w-3xl space-y-6 px-4 py-8 sm:py-12">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">{page.name}</h1>
          <p className="mt-1.5 text-[15px] text-muted">
            Organization administration · you are {page.role === 'owner' ? 'an owner' : 'an admin'}
          </p>
        </div>

        <Section
          id="members-heading"
          title="Members and roles"
          icon={Users}
          description="Owners set any role; admins set admin or member and never touch an owner. The last owner stays."
        >
          <CardBody className="py-1">
            <MembersTable orgId={page.id} initial={page.members} me={session.user.id} />
          </CardBody>
        </Section>

        <Section id="shared-servers-heading" title="Shared servers" icon={Server} description={SHARED_WORDS}>
          <CardBody>
            <SharedServers orgId={page.id} />
          </CardBody>
        </Section>

        <Section id="policy-heading" title="Policy" icon={Shield} description={POLICY_WORDS}>
          <CardBody>
            <PolicyForm orgId={page.id} initial={page.policy} />
          </CardBody>
        </Section>

        <Section id="usage-heading" title="Usage per member" icon={Activity} description={`The last ${page.usage.days} days.`}>
          <CardBody>
            <table className="w-full text-sm" data-testid="usage">
              <thead className="text-left text-xs text-faint">
                <tr>
                  <th className="py-1.5 font-medium">Member</th>
                  <th className="py-1.5 text-right font-medium">Turns</th>
                  <th className="py-1.5 text-right font-medium">Model tokens</th>
                  <th className="py-1.5 text-right font-medium">Tool calls</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-border">
                {page.usage.members.map((u) => (
                  <tr key={u.userId}>
                    <td className="max-w-0 truncate py-2 pr-3">{u.email}</td>
                    <td className="py-2 text-right tabular-nums">{fmt.format(u.turns)}</td>
                    <td className="py-2 text-right tabular-nums">{fmt.format(u.tokens)}</td>
                    <td className="py-2 text-right tabular-nums">{fmt.format(u.toolCalls)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </CardBody>
        </Section>

        <Section id="audit-heading" title="Audit" icon={ScrollText} description={AUDIT_WORDS}>
          <CardBody>
            <AuditTable orgId={page.id} initial={page.audit} />
          </CardBody>
        </Section>
      </div>
    </div>
  );
}
