import { z } from 'zod';

import type { Db } from '@/db/connection';
import { hitRateLimit } from '@/db/queries/rate-limits';
import { createUser, normalizeEmail, type UserRow } from '@/db/queries/users';
import type { Plan } from '@/db/vocabulary';
import { readConfig, type Env } from '@/lib/config';
import { AppError } from '@/lib/http/errors';
import { ensureDefaultOrganization } from '@/lib/orgs/default-org';

import { authLimits, GLOBAL_WINDOW_MS, SIGN_UP_WINDOW_MS, type AuthLimits } from './limits';
import { hashPassword } from './password';
import { newPasswordSchema } from './password-rules';
import { passwordOff, passwordSignInEnabled } from './providers';

export const signUpSchema = z
  .object({
    email: z
      .string({ error: 'must be a string' })
      .trim()
      .max(254, 'must be at most 254 characters')
      .pipe(z.email({ error: 'must be an email address like name@example.com' })),
    password: newPasswordSchema,
    name: z.string({ error: 'must be a string' }).trim().max(100, 'must be at most 100 characters').optional(),
  })
  .strict();

export type SignUpInput = z.infer<typeof signUpSchema>;

/** DEFAULT_PLAN: the plan of new accounts. */
export function defaultPlan(env?: Env): Plan {
  return readConfig(env).DEFAULT_PLAN;
}

export interface SignUpContext {
  /** The client's address when TRUSTED_PROXIES makes it trustworthy, else null. */
  client: string | null;
  limits?: AuthLimits;
  now?: Date;
}

/**
 * Creates an account. Every attempt is counted first — across all clients per minute, per email
 * per hour, and per client when its address can be trusted — so the 409 that tells a taken email
 * (people need to know) answers only within those limits and cannot be used to list accounts.
 */
export async function signUp(db: Db, input: SignUpInput, ctx: SignUpContext): Promise<UserRow> {
  if (!passwordSignInEnabled()) throw passwordOff('Creating an account with a password');
  const limits = ctx.limits ?? authLimits();
  const counters = [
    { key: 'signup:global', windowMs: GLOBAL_WINDOW_MS, limit: limits.signUpsPerMinute, message: 'Too many sign-ups right now.' },
    {
      key: `signup:email:${normalizeEmail(input.email)}`,
      windowMs: SIGN_UP_WINDOW_MS,
      limit: limits.signUpsPerEmail,
      message: 'Too many sign-up attempts for this email.',
    },
  ];
  if (ctx.client) {
    counters.push({
      key: `signup:client:${ctx.client}`,
      windowMs: SIGN_UP_WINDOW_MS,
      limit: limits.signUpsPerClient,
      message: 'Too many sign-ups from this address.',
    });
  }
  const counts = await Promise.all(counters.map((c) => hitRateLimit(db, c.key, c.windowMs, ctx.now)));
  const over = counters.find((c, i) => counts[i]! > c.limit);
  if (over) {
    const wait = over.windowMs === GLOBAL_WINDOW_MS ? 'a minute' : 'an hour';
    throw new AppError('rate_limited', 'signup', `${over.message} Try again in ${wait}.`);
  }
  const user = await createUser(db, {
    email: input.email,
    name: input.name || null,
    passwordHash: await hashPassword(input.password),
    plan: defaultPlan(),
  });
  if (!user) throw new AppError('conflict', 'account', 'An account with this email already exists. Sign in instead.', 'email');
  await ensureDefaultOrganization(db);
  return user;
}
