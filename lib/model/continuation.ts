/**
 * Going on with an answer the model cut at its length limit (`stop_reason: max_tokens`). The host
 * sends the cut answer back as the last (assistant) message and the model continues it; where that
 * is not allowed (extended thinking on, or the answer ended in a thinking block) it sends this
 * short user message instead. The offline demo model recognises both.
 */
export const CONTINUE_PROMPT = 'Continue from where you stopped.';
