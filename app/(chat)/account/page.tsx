import { listSessions } from '@/lib/account/sessions';
import { requirePageSession } from '@/lib/server/page-session';
import { getRuntime } from '@/lib/server/runtime';

import { DeleteSection } from './delete-section';
import { PasswordSection } from './password-section';
import { SessionsSection } from './sessions-section';
import { Section } from './ui';

export const dynamic = 'force-dynamic';

export default async function AccountPage() {
  const session = await requirePageSession();
  const rt = await getRuntime();
  const sessions = await listSessions(rt.handle.db, session);
  return (
    <div className="h-full overflow-y-auto">
      <div className="mx-auto max-w-2xl space-y-6 px-4 py-8">
        <div>
          <h1 className="text-2xl font-semibold">Account</h1>
          <p className="mt-1 text-sm text-stone-600">Signed in as {session.user.email}</p>
        </div>
        <PasswordSection />
        <SessionsSection sessions={sessions} />
        <Section id="export-heading" title="Your data">
          <p className="mb-4 text-sm text-stone-600">
            One JSON file with your profile, sessions, conversations (messages and tool calls) and notes. It holds no passwords or keys.
          </p>
          <a
            href="/api/account/export"
            download
            className="inline-block rounded-lg border border-stone-300 px-3 py-2 text-sm font-semibold hover:bg-stone-50"
          >
            Download my data
          </a>
        </Section>
        <DeleteSection email={session.user.email} />
      </div>
    </div>
  );
}
