import { notFound } from 'next/navigation';

import { ChatView } from '@/app/_components/chat/chat-view';
import { view } from '@/lib/chat/service';
import { AppError } from '@/lib/http/errors';
import { requirePageSession } from '@/lib/server/page-session';
import { requireUuid } from '@/lib/server/route';
import { getRuntime } from '@/lib/server/runtime';

export const dynamic = 'force-dynamic';

export default async function ConversationPage({ params }: { params: Promise<{ id: string }> }) {
  const session = await requirePageSession();
  const rt = await getRuntime();
  const { id } = await params;
  const conversation = await view(rt, session.user.id, requireUuid(id, 'conversation')).catch((err) => {
    if (err instanceof AppError && err.type === 'not_found') notFound();
    throw err;
  });
  return <ChatView key={conversation.id} initial={conversation} modelLabel={rt.modelConfig.label} pingMs={rt.streamTiming.pingMs} />;
}
