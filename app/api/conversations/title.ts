import { z } from 'zod';

/** A conversation's title, as the create and rename routes accept it. */
export const conversationTitle = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters');
