import { and, eq, isNull, not } from 'drizzle-orm';

import type { Db } from '../connection';
import { accessTokens, authAccounts, passwordResetTokens, users } from '../schema';
import type { Plan } from '../vocabulary';

export type UserRow = typeof users.$inferSelect;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Inserts a user; returns null when the email is taken (the unique index decides, not a prior read). */
export async function createUser(
  db: Db,
  input: { email: string; name?: string | null; passwordHash?: string | null; plan?: string; emailVerifiedAt?: Date | null },
): Promise<UserRow | null> {
  const rows = await db
    .insert(users)
    .values({
      email: normalizeEmail(input.email),
      name: input.name ?? null,
      passwordHash: input.passwordHash ?? null,
      plan: input.plan,
      emailVerifiedAt: input.emailVerifiedAt ?? null,
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

/** A person's identity at a sign-in provider: the provider's id (`oidc`, `github`) and its stable subject for them. */
export interface ProviderIdentity {
  provider: string;
  subject: string;
}

/** The user an identity was linked to, found by subject alone (an email changed at the provider still finds them). */
export async function findUserByIdentity(db: Db, identity: ProviderIdentity): Promise<UserRow | null> {
  const rows = await db
    .select({ user: users })
    .from(authAccounts)
    .innerJoin(users, eq(users.id, authAccounts.userId))
    .where(and(eq(authAccounts.provider, identity.provider), eq(authAccounts.providerAccountId, identity.subject)))
    .limit(1);
  return rows[0]?.user ?? null;
}

/** Links an identity to a user; false when it is already linked (to anyone: the primary key decides). */
export async function linkIdentity(db: Db, identity: ProviderIdentity, userId: string): Promise<boolean> {
  const rows = await db
    .insert(authAccounts)
    .values({ provider: identity.provider, providerAccountId: identity.subject, userId })
    .onConflictDoNothing()
    .returning({ userId: authAccounts.userId });
  return rows.length > 0;
}

/**
 * Creates a user without a password and links the identity to them, together; null when the
 * email is taken (nothing is written then).
 */
export async function createUserWithIdentity(
  db: Db,
  input: { email: string; name?: string | null; plan?: string; emailVerifiedAt?: Date | null },
  identity: ProviderIdentity,
): Promise<UserRow | null> {
  return db.transaction(async (tx) => {
    const user = await createUser(tx, input);
    if (!user) return null;
    await tx.insert(authAccounts).values({ provider: identity.provider, providerAccountId: identity.subject, userId: user.id });
    return user;
  });
}

/**
 * Links an identity whose provider vouched for the email to that email's account, together with
 * what proving the address means (lib/auth/sso-link.ts): the email is marked proven, and when it
 * had not been before, the account's password, its reset links, its access tokens and every other
 * identity linked to it go — they were made by whoever typed or claimed the address, who need not
 * be its owner (an unverified sign-on creates an account just in time, and its identity would
 * otherwise still open the account after the owner took it over); the ids of the tokens (and
 * connected clients) it revoked are returned, for /mcp to close their streams. False (nothing written)
 * when the identity is already linked to anyone. Sessions are ended by the caller (their grants
 * are audited on the way).
 */
export async function linkVerifiedIdentity(
  db: Db,
  identity: ProviderIdentity,
  user: UserRow,
  providerName: string,
  now = new Date(),
): Promise<{ linked: false } | { linked: true; tookOver: boolean; revokedTokenIds: string[] }> {
  return db.transaction(async (tx) => {
    if (!(await linkIdentity(tx, identity, user.id))) return { linked: false };
    // Proven before: an IdP vouched earlier, so the password was set by the address's owner.
    const tookOver = await tx
      .update(users)
      .set({ emailVerifiedAt: now, passwordHash: null, passwordRemovedBy: user.passwordHash ? providerName : null })
      .where(and(eq(users.id, user.id), isNull(users.emailVerifiedAt)))
      .returning({ id: users.id });
    let revokedTokenIds: string[] = [];
    if (tookOver.length) {
      await tx.delete(passwordResetTokens).where(eq(passwordResetTokens.userId, user.id));
      await tx
        .delete(authAccounts)
        .where(
          and(
            eq(authAccounts.userId, user.id),
            not(and(eq(authAccounts.provider, identity.provider), eq(authAccounts.providerAccountId, identity.subject))!),
          ),
        );
      const revoked = await tx
        .update(accessTokens)
        .set({ revokedAt: now })
        .where(and(eq(accessTokens.userId, user.id), isNull(accessTokens.revokedAt)))
        .returning({ id: accessTokens.id });
      revokedTokenIds = revoked.map((r) => r.id);
    }
    return { linked: true, tookOver: tookOver.length > 0, revokedTokenIds };
  });
}
