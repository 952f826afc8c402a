/**
 * The one event of the "Other clients" inbox's stream (lib/gateway/inbox-stream.ts), declared where
 * both the server and the page can import it: a call of the person's MCP clients started or stopped
 * waiting (`data`: its id and status; both null when the page should simply read the list again).
 */
export const INBOX_CHANGED = 'client_approvals.changed';
