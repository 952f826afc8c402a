import { and, eq } from 'drizzle-orm';

import type { Db } from '../connection';
import { authAccounts, users } from '../schema';
import type { Plan } from '../vocabulary';

export type UserRow = typeof users.$inferSelect;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Inserts a user; returns null when the email is taken (the unique index decides, not a prior read). */
export async function createUser(
  db: Db,
  input: { email: string; name?: string | null; passwordHash?: string | null; plan?: string },
): Promise<UserRow | null> {
  const rows = await db
    .insert(users)
    .values({
      email: normalizeEmail(input.email),
      name: input.name ?? null,
      passwordHash: input.passwordHash ?? null,
      plan: input.plan,
    })
    .onConflictDoNothing({ target: users.email })
    .returning();
  return rows[0] ?? null;
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | null> {
  const rows = await db
    .select()
    .from(users)
    .where(eq(users.email, normalizeEmail(email)))
    .limit(1);
  return rows[0] ?? null;
}

export async function findUserById(db: Db, id: string): Promise<UserRow | null> {
  const rows = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return rows[0] ?? null;
}

/** The user's plan (what `limitsFor` takes); null when there is no such user. */
export async function getUserPlan(db: Db, id: string): Promise<string | null> {
  const rows = await db.select({ plan: users.plan }).from(users).where(eq(users.id, id)).limit(1);
  return rows[0]?.plan ?? null;
}

/** The person's own instructions for every conversation (null: none); false when there is no such user. */
export async function setUserInstructions(db: Db, id: string, instructions: string | null): Promise<boolean> {
  const rows = await db.update(users).set({ instructions }).where(eq(users.id, id)).returning({ id: users.id });
  return rows.length > 0;
}

/** The person's own instructions (null: none or no such user). */
export async function getUserInstructions(db: Db, id: string): Promise<string | null> {
  const rows = await db.select({ instructions: users.instructions }).from(users).where(eq(users.id, id)).limit(1);
  return rows[0]?.instructions ?? null;
}

export async function setUserPlan(db: Db, email: string, plan: Plan): Promise<UserRow | null> {
  const rows = await db
    .update(users)
    .set({ plan })
    .where(eq(users.email, normalizeEmail(email)))
    .returning();
  return rows[0] ?? null;
}

/** Sets a new password hash (a password change or reset). */
export async function setPasswordHash(db: Db, userId: string, passwordHash: string): Promise<boolean> {
  const rows = await db.update(users).set({ passwordHash }).where(eq(users.id, userId)).returning({ id: users.id });
  return rows.length > 0;
}

/** Swaps the hash only if it is still `oldHash`: a rehash must not undo a password changed meanwhile. */
export async function replacePasswordHash(db: Db, userId: string, oldHash: string, newHash: string): Promise<boolean> {
  const rows = await db
    .update(users)
    .set({ passwordHash: newHash })
    .where(and(eq(users.id, userId), eq(users.passwordHash, oldHash)))
    .returning({ id: users.id });
  return rows.length > 0;
}

/** Deletes the user; everything they own goes with them (every owner reference cascades). */
export async function deleteUser(db: Db, userId: string): Promise<boolean> {
  const rows = await db.delete(users).where(eq(users.id, userId)).returning({ id: users.id });
  return rows.length > 0;
}

export class OAuthEmailTaken extends Error {
  constructor() {
    super('An account with this email already exists. Sign in with your password.');
  }
}

/** Finds or creates the user behind a GitHub / Google identity. */
export async function upsertOAuthUser(
  db: Db,
  input: { provider: string; providerAccountId: string; email: string; name?: string | null },
): Promise<UserRow> {
  const linked = await db
    .select({ user: users })
    .from(authAccounts)
    .innerJoin(users, eq(users.id, authAccounts.userId))
    .where(and(eq(authAccounts.provider, input.provider), eq(authAccounts.providerAccountId, input.providerAccountId)))
    .limit(1);
  if (linked[0]) return linked[0].user;
  // Never link to an existing account by email alone: sign-up does not verify addresses, so
  // someone could have registered this email first and would then share the account.
  const user = await createUser(db, { email: input.email, name: input.name });
  if (!user) throw new OAuthEmailTaken();
  await db
    .insert(authAccounts)
    .values({ provider: input.provider, providerAccountId: input.providerAccountId, userId: user.id })
    .onConflictDoNothing();
  return user;
}
