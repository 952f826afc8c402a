import type { Metadata } from 'next';

import { ActivityPage } from '@/app/_components/activity/activity-page';
import { activityFilterOptions } from '@/lib/audit/activity';
import { requirePageSession } from '@/lib/server/page-session';
import { getRuntime } from '@/lib/server/runtime';

export const metadata: Metadata = { title: 'Activity · Switchboard' };
export const dynamic = 'force-dynamic';

type Query = Record<string, string | string[] | undefined>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The person's activity log (app/_components/activity). A tool-call card links here with
 * `?toolCall=<id>`, which shows and highlights that call's entry.
 */
export default async function Page({ searchParams }: { searchParams: Promise<Query> }) {
  const session = await requirePageSession();
  const rt = await getRuntime();
  const query = await searchParams;
  const toolCall = typeof query.toolCall === 'string' && UUID.test(query.toolCall) ? query.toolCall : null;
  const options = await activityFilterOptions(rt.handle.db, session.user.id);
  return (
    <ActivityPage
      toolCall={toolCall}
      conversations={options.conversations.map((c) => ({ id: c.id, label: c.name || 'Untitled' }))}
      servers={options.servers.map((s) => ({ id: s.id, label: s.name }))}
    />
  );
}
