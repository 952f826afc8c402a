import type { StoredInputRequests } from '@/db/stored-json';

/**
 * The link of a server's URL-mode elicitation: a page the person is asked to visit (a sign-in,
 * a payment, a consent screen) before the call can go on. It opens in the person's browser, not
 * here, so the outbound URL guard (lib/mcp/url-guard.ts) is not the question; what matters is that
 * it is a web page (a `javascript:` or `data:` link would run in a window of its own) and that its
 * host — what the person judges — is the one it really goes to (no `https://bank.example@evil`).
 * Pure: the tool card shows the same verdict the gateway stored the request under.
 */
export type ElicitationLink = { ok: true; url: string; host: string } | { ok: false; problem: string };

/** Longer than any real page's address; a longer one is not shown or opened. */
export const MAX_ELICITATION_LINK_CHARS = 8192;

/**
 * Plain http is offered only for a page on the person's own machine (a local helper, a test):
 * anywhere else it can be read or changed on the way.
 */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function elicitationLink(raw: unknown): ElicitationLink {
  if (typeof raw !== 'string' || !raw.trim()) return { ok: false, problem: 'the link is missing' };
  if (raw.length > MAX_ELICITATION_LINK_CHARS) {
    return { ok: false, problem: `the link is longer than ${MAX_ELICITATION_LINK_CHARS.toLocaleString('en')} characters` };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: `"${clip(raw)}" is not a valid URL` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return {
      ok: false,
      problem: `a "${url.protocol.replace(/:$/, '')}:" link is not a web page (only https links are opened, or http on this machine)`,
    };
  }
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
    return { ok: false, problem: `a plain http link to ${url.host} can be read or changed on the way (only https links are opened)` };
  }
  if (url.username || url.password) {
    return { ok: false, problem: 'the link carries a user name or password before its host, which hides where it really goes' };
  }
  if (!url.host) return { ok: false, problem: 'the link has no host' };
  return { ok: true, url: url.toString(), host: url.host };
}

/**
 * The first URL-mode request of a server's `input_required` whose link cannot be offered, in
 * words, or null when every one can (form-mode requests are not this module's concern).
 */
export function refusedElicitationLink(requests: StoredInputRequests): string | null {
  for (const [key, request] of Object.entries(requests)) {
    if (request.params?.mode !== 'url') continue;
    const link = elicitationLink(request.params.url);
    if (!link.ok) return `inputRequests.${key}.params.url: ${link.problem}`;
  }
  return null;
}

function clip(s: string): string {
  return s.length > 80 ? `${s.slice(0, 79)}…` : s;
}
