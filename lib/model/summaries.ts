/**
 * Summaries of a conversation's oldest turns, written when its history nears the model's window
 * (lib/agent/context). The host asks with this system prompt; the offline demo model recognises
 * it by its first words and answers deterministically.
 */
export const SUMMARY_REQUEST = 'Summarize the earlier part of a conversation';

export const SUMMARY_SYSTEM_PROMPT =
  `${SUMMARY_REQUEST} between a person and an assistant that uses tools, so the assistant can continue it without the ` +
  'original messages. Keep what the person asked for and decided, facts and figures the tools returned that may matter ' +
  'later, names and ids, and what is still open. Plain prose or short bullets, no preamble, in the language of the conversation.';

/** How the transcript given to the summarizer begins (the demo model finds its lines by these marks). */
export const TRANSCRIPT_MARKS = { person: 'Person:', assistant: 'Assistant:', earlier: 'Summary so far:' } as const;
