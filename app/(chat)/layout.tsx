import { ChatShell } from '@/app/_components/shell/chat-shell';
import { listForUser } from '@/lib/chat/service';
import { requirePageSession } from '@/lib/server/page-session';
import { getRuntime } from '@/lib/server/runtime';

export const dynamic = 'force-dynamic';

export default async function ChatLayout({ children }: { children: React.ReactNode }) {
  const session = await requirePageSession();
  const rt = await getRuntime();
  const conversations = await listForUser(rt, session.user.id);
  return (
    <ChatShell
      conversations={conversations}
      user={{ email: session.user.email, name: session.user.name }}
      modelLabel={rt.modelConfig.label}
    >
      {children}
    </ChatShell>
  );
}
