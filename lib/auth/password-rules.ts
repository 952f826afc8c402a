import { z } from 'zod';

/** The rule for any new password: sign-up, change and reset say the same thing. */
export const newPasswordSchema = z
  .string({ error: 'must be a string' })
  .min(8, 'must be at least 8 characters')
  .max(1024, 'must be at most 1024 characters');
