import { asc, eq, sql } from 'drizzle-orm';

import type { Db } from '../connection';
import { authAccounts, authSessions, conversations, mcpServers, messages, notes, shareLinks, toolCalls, users } from '../schema';
import { parseStored, storedDecision, storedMessageContent, storedToolResult, storedVerdict } from '../stored-json';
import { listAllAccessTokens } from './access-tokens';

/**
 * Everything a person's data export holds, read column by column: what is left out is left out
 * on purpose — the password hash, session ids, tokens and resume state of tool calls, argument
 * hashes, server metadata that is not the person's, the stored full text of cut results, and
 * share links' token hashes.
 */
export async function loadAccountData(db: Db, userId: string) {
  const [profile] = await db
    .select({
      id: users.id,
      email: users.email,
      name: users.name,
      plan: users.plan,
      // Their own instructions for every conversation: the person's data, like their notes.
      instructions: users.instructions,
      createdAt: users.createdAt,
      passwordHash: users.passwordHash,
    })
    .from(users)
    .where(eq(users.id, userId));
  if (!profile) return null;
  const [linked, sessions, convs, msgs, calls, noteRows, serverRows, shareRows, tokenRows] = await Promise.all([
    db
      .select({ provider: authAccounts.provider, createdAt: authAccounts.createdAt })
      .from(authAccounts)
      .where(eq(authAccounts.userId, userId)),
    db
      .select({
        createdAt: authSessions.createdAt,
        lastSeenAt: authSessions.lastSeenAt,
        expiresAt: authSessions.expiresAt,
        endedAt: authSessions.endedAt,
        userAgent: authSessions.userAgent,
      })
      .from(authSessions)
      .where(eq(authSessions.userId, userId))
      .orderBy(asc(authSessions.createdAt)),
    db
      .select({
        id: conversations.id,
        title: conversations.title,
        model: conversations.model,
        instructions: conversations.instructions,
        // With each message's id and parent: the conversation's tree (edits, other answers) and the branch it shows.
        activeLeafId: conversations.activeLeafId,
        createdAt: conversations.createdAt,
        updatedAt: conversations.updatedAt,
      })
      .from(conversations)
      .where(eq(conversations.userId, userId))
      .orderBy(asc(conversations.createdAt)),
    db
      .select({
        conversationId: messages.conversationId,
        id: messages.id,
        parentId: messages.parentId,
        seq: messages.seq,
        role: messages.role,
        content: messages.content,
        stopReason: messages.stopReason,
        createdAt: messages.createdAt,
      })
      .from(messages)
      .innerJoin(conversations, eq(conversations.id, messages.conversationId))
      .where(eq(conversations.userId, userId))
      .orderBy(asc(messages.conversationId), asc(messages.seq)),
    db
      .select({
        id: toolCalls.id,
        conversationId: toolCalls.conversationId,
        modelName: toolCalls.modelName,
        server: toolCalls.serverName,
        tool: toolCalls.tool,
        input: toolCalls.input,
        status: toolCalls.status,
        verdict: toolCalls.verdict,
        decision: toolCalls.decision,
        result: toolCalls.result,
        isError: toolCalls.isError,
        // Only the size of a cut result's stored full text (the part the model saw is in `result`): the
        // texts add up to the stored-results quota, far too much for one JSON document in memory.
        storedResultBytes: sql<number | null>`octet_length(${toolCalls.fullText})`,
        createdAt: toolCalls.createdAt,
        startedAt: toolCalls.startedAt,
        endedAt: toolCalls.endedAt,
      })
      .from(toolCalls)
      .where(eq(toolCalls.userId, userId))
      .orderBy(asc(toolCalls.createdAt), asc(toolCalls.position)),
    db
      .select({ id: notes.id, title: notes.title, body: notes.body, createdAt: notes.createdAt, updatedAt: notes.updatedAt })
      .from(notes)
      .where(eq(notes.userId, userId))
      .orderBy(asc(notes.createdAt)),
    // The person's MCP servers, without their sealed credentials (only whether there are any).
    db
      .select({
        name: mcpServers.name,
        namespace: mcpServers.namespace,
        url: mcpServers.url,
        trust: mcpServers.trust,
        trustContent: mcpServers.trustContent,
        timeoutMs: mcpServers.timeoutMs,
        enabled: mcpServers.enabled,
        hasHeaders: sql<boolean>`${mcpServers.headersSealed} is not null`,
        oauthClientId: mcpServers.oauthClientId,
        createdAt: mcpServers.createdAt,
      })
      .from(mcpServers)
      .where(eq(mcpServers.userId, userId))
      .orderBy(asc(mcpServers.createdAt)),
    // The person's share links, without their token hashes (a link's token is never kept).
    db
      .select({
        conversationId: shareLinks.conversationId,
        createdAt: shareLinks.createdAt,
        includeToolDetails: shareLinks.includeToolDetails,
        audience: shareLinks.audience,
        expiresAt: shareLinks.expiresAt,
        snapshotAt: shareLinks.snapshotAt,
        snapshotMovedAt: shareLinks.snapshotMovedAt,
      })
      .from(shareLinks)
      .where(eq(shareLinks.userId, userId))
      .orderBy(asc(shareLinks.createdAt)),
    // The person's access tokens, revoked ones included, without their hashes (a token is never kept).
    listAllAccessTokens(db, userId),
  ]);
  const { passwordHash, ...rest } = profile;
  return {
    profile: { ...rest, hasPassword: passwordHash !== null },
    linkedAccounts: linked,
    sessions,
    conversations: convs,
    // JSON columns through their schemas, like every other read: an old row exports in today's shape.
    messages: msgs.map((m) => ({ ...m, content: parseStored(storedMessageContent, m.content, 'messages.content', m.conversationId) })),
    toolCalls: calls.map((c) => ({
      ...c,
      verdict: parseStored(storedVerdict, c.verdict, 'tool_calls.verdict', c.id),
      decision: parseStored(storedDecision, c.decision, 'tool_calls.decision', c.id),
      result: parseStored(storedToolResult, c.result, 'tool_calls.result', c.id),
    })),
    notes: noteRows,
    servers: serverRows,
    shareLinks: shareRows,
    accessTokens: tokenRows,
  };
}
