import { z } from 'zod';

import { issuerFetch } from './issuer-fetch';

/*
 * GitHub has no ID token and no `email_verified` claim: its `/user` answer carries the public
 * email, which the person may have set to any address, verified or not. Auth.js's GitHub provider
 * takes that, or else the primary address of `/user/emails` without looking at `verified` — and
 * linking by such an address would hand an account to whoever typed its email into their GitHub
 * profile. So the profile is read here: the primary address, and `email_verified: true` only when
 * GitHub says that address is verified (lib/auth/sso-link.ts links on nothing less).
 */

export const GITHUB_API = 'https://api.github.com';

const emailsSchema = z.array(z.object({ email: z.string(), primary: z.boolean(), verified: z.boolean() }).loose());
const userSchema = z.object({ id: z.union([z.number(), z.string()]), login: z.string(), email: z.string().nullish() }).loose();

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

async function readJson(fetcher: Fetch, url: string, accessToken: string): Promise<unknown> {
  const res = await fetcher(url, {
    headers: { Authorization: `Bearer ${accessToken}`, Accept: 'application/vnd.github+json', 'User-Agent': 'switchboard' },
  });
  if (!res.ok) throw new Error(`GitHub answered ${url} with ${res.status}`);
  return res.json();
}

/**
 * The userinfo request of the GitHub provider: `/user`, with `email` the primary address of
 * `/user/emails` and `email_verified` whether GitHub verified it. Without the `user:email` scope's
 * answer, the public email stays, unverified.
 */
export function githubUserinfo(apiBase = GITHUB_API, fetcher: Fetch = issuerFetch()) {
  return async ({ tokens }: { tokens: { access_token?: string } }): Promise<Record<string, unknown>> => {
    const token = tokens.access_token;
    if (!token) throw new Error('GitHub sign-in: no access token to read the profile with');
    const user = userSchema.parse(await readJson(fetcher, `${apiBase}/user`, token));
    const emails = emailsSchema.safeParse(await readJson(fetcher, `${apiBase}/user/emails`, token).catch(() => null));
    const primary = emails.success ? emails.data.find((e) => e.primary) : undefined;
    return primary
      ? { ...user, email: primary.email, email_verified: primary.verified }
      : { ...user, email: user.email ?? null, email_verified: false };
  };
}
