import { readCapped } from '@/lib/http/read-capped';

/**
 * How the app talks to a sign-in provider (OIDC discovery, token, JWKS, userinfo): bounded in
 * time and in size, like every outbound request of the app — but not through the MCP URL guard
 * (lib/mcp/url-guard.ts). The guard is there for URLs a *person* typed (an MCP server), where a
 * private address is an attack on the network the app sits in. The issuer is the *operator's*
 * setting, and a company IdP on its own network (Keycloak at 10.0.0.5) is the ordinary case, so
 * private addresses are allowed; what the operator can get wrong is refused where it is read
 * instead (lib/config/settings.ts: https, plain http only to this machine).
 */

/** Each request: connecting and the whole answer within this. */
export const ISSUER_TIMEOUT_MS = 10_000;
/** Discovery documents, key sets and token answers are a few KB. */
export const ISSUER_MAX_BYTES = 1024 * 1024;

export class IssuerAnswerTooLarge extends Error {
  constructor(url: string) {
    super(`the sign-in provider's answer from ${new URL(url).origin} is larger than ${ISSUER_MAX_BYTES} bytes`);
    this.name = 'IssuerAnswerTooLarge';
  }
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export function issuerFetch(opts: { timeoutMs?: number; maxBytes?: number; base?: Fetch } = {}): Fetch {
  const timeoutMs = opts.timeoutMs ?? ISSUER_TIMEOUT_MS;
  const maxBytes = opts.maxBytes ?? ISSUER_MAX_BYTES;
  const base = opts.base ?? fetch;
  return async (input, init) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    // Redirects are not followed: an OIDC endpoint answers where discovery said it would.
    const res = await base(input, { ...init, signal, redirect: 'manual' });
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const body = NULL_BODY_STATUSES.has(res.status) ? null : await readAtMost(res, maxBytes, url);
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

async function readAtMost(res: Response, maxBytes: number, url: string): Promise<Uint8Array<ArrayBuffer> | null> {
  if (!res.body) return null;
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body.cancel().catch(() => {});
    throw new IssuerAnswerTooLarge(url);
  }
  return readCapped(res.body, maxBytes, () => new IssuerAnswerTooLarge(url));
}
