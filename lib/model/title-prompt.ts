/**
 * The system prompt of a title request: the host asks the model for a conversation's title with
 * it, and the offline demo model recognises it by its first words (and answers with a few words
 * of the message).
 */
export const TITLE_REQUEST = 'Write a title for a conversation';

export const TITLE_SYSTEM_PROMPT =
  `${TITLE_REQUEST} that starts with the user's message below. Answer with the title only: at most six words, ` +
  'no quotes, no final period, in the language of the message.';
