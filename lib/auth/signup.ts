import { z } from 'zod';

import type { Db } from '@/db/connection';
import { hitRateLimit } from '@/db/queries/rate-limits';
import { createUser, normalizeEmail, type UserRow } from '@/db/queries/users';
import { AppError } from '@/lib/http/errors';

import { hashPassword } from './password';

export const SIGN_UP_WINDOW_MS = 60 * 60 * 1000;
export const SIGN_UP_LIMIT_PER_CLIENT = 20;
export const SIGN_UP_LIMIT_PER_EMAIL = 5;

export const signUpSchema = z
  .object({
    email: z
      .string({ error: 'must be a string' })
      .trim()
      .max(254, 'must be at most 254 characters')
      .pipe(z.email({ error: 'must be an email address like name@example.com' })),
    password: z.string({ error: 'must be a string' }).min(8, 'must be at least 8 characters').max(1024, 'must be at most 1024 characters'),
    name: z.string({ error: 'must be a string' }).trim().max(100, 'must be at most 100 characters').optional(),
  })
  .strict();

export type SignUpInput = z.infer<typeof signUpSchema>;

export function defaultPlan(env = process.env): string {
  const plan = env.DEFAULT_PLAN ?? 'pro';
  if (!['free', 'pro', 'enterprise'].includes(plan)) {
    throw new Error(`DEFAULT_PLAN must be free, pro or enterprise (got "${plan}").`);
  }
  return plan;
}

export async function signUp(db: Db, input: SignUpInput, client: string): Promise<UserRow> {
  const [byClient, byEmail] = await Promise.all([
    hitRateLimit(db, `signup:client:${client}`, SIGN_UP_WINDOW_MS),
    hitRateLimit(db, `signup:email:${normalizeEmail(input.email)}`, SIGN_UP_WINDOW_MS),
  ]);
  if (byClient > SIGN_UP_LIMIT_PER_CLIENT || byEmail > SIGN_UP_LIMIT_PER_EMAIL) {
    throw new AppError('rate_limited', 'signup', 'Too many sign-ups from this address. Try again in an hour.');
  }
  const user = await createUser(db, {
    email: input.email,
    name: input.name || null,
    passwordHash: await hashPassword(input.password),
    plan: defaultPlan(),
  });
  if (!user) throw new AppError('conflict', 'account', 'An account with this email already exists. Sign in instead.', 'email');
  return user;
}
