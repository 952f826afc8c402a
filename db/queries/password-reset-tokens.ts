import { and, eq, gt, isNull } from 'drizzle-orm';

import type { Db } from '../connection';
import { passwordResetTokens } from '../schema';

/** Stores a new reset token (by its hash) and drops the user's older ones: only the newest link works. */
export async function replaceResetToken(db: Db, input: { userId: string; tokenHash: string; expiresAt: Date }): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.delete(passwordResetTokens).where(eq(passwordResetTokens.userId, input.userId));
    await tx.insert(passwordResetTokens).values(input);
  });
}

/** Marks the token used if it is unused and unexpired, in one statement: a link works once. Returns its user. */
export async function consumeResetToken(db: Db, tokenHash: string, now = new Date()): Promise<string | null> {
  const rows = await db
    .update(passwordResetTokens)
    .set({ usedAt: now })
    .where(and(eq(passwordResetTokens.tokenHash, tokenHash), isNull(passwordResetTokens.usedAt), gt(passwordResetTokens.expiresAt, now)))
    .returning({ userId: passwordResetTokens.userId });
  return rows[0]?.userId ?? null;
}

/** Whether the token would still work (the reset page says so before asking for a password). */
export async function isResetTokenUsable(db: Db, tokenHash: string, now = new Date()): Promise<boolean> {
  const rows = await db
    .select({ userId: passwordResetTokens.userId })
    .from(passwordResetTokens)
    .where(and(eq(passwordResetTokens.tokenHash, tokenHash), isNull(passwordResetTokens.usedAt), gt(passwordResetTokens.expiresAt, now)))
    .limit(1);
  return rows.length > 0;
}
