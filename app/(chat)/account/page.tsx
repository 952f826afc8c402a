import { Download, FileJson } from 'lucide-react';

import { buttonClasses, CardFooter } from '@/app/_components/ui';
import { listAccessTokens } from '@/lib/account/access-tokens';
import { personalInstructions } from '@/lib/account/instructions';
import { passwordRemovedNotice } from '@/lib/account/password-removed';
import { listSessions } from '@/lib/account/sessions';
import { passwordSignInEnabled } from '@/lib/auth/providers';
import { pickableTools } from '@/lib/gateway/catalog';
import { connectedClients } from '@/lib/oauth-server/connected-clients';
import { listMyOrgs } from '@/lib/orgs/orgs';
import { requirePageSession } from '@/lib/server/page-session';
import { getRuntime } from '@/lib/server/runtime';

import { ClientsSection } from './clients-section';
import { DeleteSection } from './delete-section';
import { InstructionsSection } from './instructions-section';
import { OrganizationSection } from './organization-section';
import { PasswordSection } from './password-section';
import { SessionsSection } from './sessions-section';
import { TokensSection } from './tokens-section';
import { Section } from './ui';

export const dynamic = 'force-dynamic';

export default async function AccountPage() {
  const session = await requirePageSession();
  const rt = await getRuntime();
  const [sessions, instructions, tokens, clients, tools, passwordRemoved, orgs] = await Promise.all([
    listSessions(rt.handle.db, session),
    personalInstructions(rt.handle.db, session.user.id),
    listAccessTokens(rt.handle.db, session.user.id),
    connectedClients(rt.handle.db, session.user.id),
    pickableTools({ db: rt.handle.db, host: rt.tools.host }, session.user),
    passwordRemovedNotice(rt.handle.db, session.user.id),
    listMyOrgs(rt.handle.db, session.user.id),
  ]);
  return (
    <div className="h-full overflow-y-auto">
      <div className="mx-auto max-w-2xl space-y-6 px-4 py-8 sm:py-12">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Account</h1>
          <p className="mt-1.5 text-[15px] text-muted">
            Signed in as <span className="font-medium break-words text-fg">{session.user.email}</span>
          </p>
          {passwordRemoved && (
            <p role="status" className="mt-3 rounded-lg border border-border bg-surface-sunken px-3 py-2 text-sm">
              {passwordRemoved}
            </p>
          )}
        </div>
        <InstructionsSection initial={instructions.text} />
        <OrganizationSection orgs={orgs} />
        {/* With AUTH_PASSWORD=off nobody signs in with one, and changing it is refused. */}
        {passwordSignInEnabled() && <PasswordSection />}
        <SessionsSection sessions={sessions} />
        <TokensSection initial={tokens} tools={tools} />
        <ClientsSection initial={clients} tools={tools} />
        <Section
          id="export-heading"
          title="Your data"
          icon={FileJson}
          description={
            <>
              One JSON file with your profile, instructions, sessions, conversations (messages and tool calls), notes and the names of your
              access tokens. It holds no passwords, keys or tokens. Your activity log (every tool call and grant change, signed) is a file
              of its own; deleting the account deletes it too.
            </>
          }
        >
          <CardFooter className="mt-3">
            <a href="/api/account/export" download className={buttonClasses()}>
              <Download className="size-4 shrink-0" aria-hidden />
              Download my data
            </a>
            <a href="/api/activity?format=jsonl" download className={buttonClasses({ variant: 'ghost' })}>
              <Download className="size-4 shrink-0" aria-hidden />
              Download my activity log
            </a>
          </CardFooter>
        </Section>
        <DeleteSection email={session.user.email} />
      </div>
    </div>
  );
}
