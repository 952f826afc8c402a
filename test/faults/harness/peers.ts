import type { ConversationView } from '@/lib/chat/views';
import type { ReplyBlock } from '@/lib/model/demo/types';
import { startPeerModel, type PeerReply, type PeerRequest } from '@/test/fixtures/peer-model';

import type { AppProcess } from './app-process';
import { call, type Person } from './client';

/**
 * The model peer as the fault suites drive it: each conversation's first message carries a tag
 * (`[tag] …`), and each tag has its own list of answers, taken in order, so conversations never
 * take each other's answers whatever order the instances ask in.
 */
export async function scriptedPeer(port: number) {
  const scripts = new Map<string, PeerReply[]>();
  const unscripted: string[] = [];
  const tagOf = (req: PeerRequest): string | null => {
    const first = req.body.messages[0];
    const block = typeof first?.content === 'string' ? undefined : first?.content.find((b) => b.type === 'text');
    const text = typeof first?.content === 'string' ? first.content : block?.type === 'text' ? block.text : undefined;
    return /^\[([\w-]+)\]/.exec(text ?? '')?.[1] ?? null;
  };
  const peer = await startPeerModel({
    port,
    decide(req) {
      const tag = tagOf(req);
      const next = tag ? scripts.get(tag)?.shift() : undefined;
      if (next) return next;
      unscripted.push(tag ?? '(untagged)');
      return { kind: 'status', status: 500, type: 'api_error', message: `the fault suite has no answer scripted for ${tag}` };
    },
  });
  return {
    ...peer,
    /** Answers for the conversation whose first message starts with `[tag]`. */
    script(tag: string, replies: PeerReply[]) {
      scripts.set(tag, [...replies]);
    },
    /** The requests of one conversation, in order. */
    requestsOf: (tag: string) => peer.requests.filter((r) => r.body.stream && tagOf(r) === tag),
    /** Tags that asked for more answers than scripted (a test that sees one has a bug or a double step). */
    unscripted,
  };
}

export type ScriptedPeer = Awaited<ReturnType<typeof scriptedPeer>>;

export const say = (text: string, delayMs = 5): PeerReply => ({ kind: 'answer', blocks: [{ type: 'text', text }], delayMs });
export const useTool = (id: string, name: string, input: Record<string, unknown> = {}, before?: string): PeerReply => ({
  kind: 'answer',
  blocks: [...(before ? [{ type: 'text' as const, text: before }] : []), { type: 'tool_use', id, name, input }] as ReplyBlock[],
});

/** `count` distinct words: a long answer whose every part can be told apart. */
export function words(prefix: string, count: number): string {
  return Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`).join(' ');
}

/**
 * Adds an MCP server for the person through the servers API, as the servers page does, and
 * enables every tool it lists (the review step: each tool's fingerprint as shown).
 */
export async function addServer(app: AppProcess, person: Person, body: { name: string; url: string; trust?: string; timeoutMs?: number }) {
  const { server } = await call<{
    server: { id: string; namespace: string; status: string; lastError: string | null; tools: { name: string; fingerprint: string }[] };
  }>(app, person, 'POST', '/api/servers', body);
  if (server.status !== 'connected') return server;
  const tools = Object.fromEntries(server.tools.map((t) => [t.name, t.fingerprint]));
  await call(app, person, 'POST', `/api/servers/${server.id}/enable`, { tools });
  return server;
}

/** Switches a server's tools on in one conversation (the Tools panel), optionally without asking. */
export async function grantServer(app: AppProcess, person: Person, conversationId: string, serverId: string, autoApprove = false) {
  await call(app, person, 'PUT', `/api/conversations/${conversationId}/grants`, {
    scope: `server:${serverId}/*`,
    enabled: true,
    ...(autoApprove ? { autoApprove: true } : {}),
  });
}

/** The text of the stored assistant messages of a run, as the conversation's JSON has them. */
export function storedText(view: ConversationView, runId: string): string {
  return view.messages
    .filter((m) => m.runId === runId && m.role === 'assistant')
    .flatMap((m) => m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])))
    .join('');
}
