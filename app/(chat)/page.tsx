import { NewConversation } from '@/app/_components/chat/new-conversation';
import { requirePageSession } from '@/lib/server/page-session';
import { getRuntime } from '@/lib/server/runtime';

export const dynamic = 'force-dynamic';

export default async function HomePage() {
  await requirePageSession();
  const rt = await getRuntime();
  return <NewConversation modelLabel={rt.modelConfig.label} />;
}
