// The demo model: an offline, deterministic stand-in for the Anthropic
// Messages API, so Switchboard runs (and its tests run) with no API key and no
// network. It implements `POST /v1/messages` in-process behind a `fetch`
// function that the real SDK uses, so hosts exercise their real code path.
//
// Behaviour (a contract — hosts and tests depend on it):
// - Last message is a user message holding `tool_result` blocks → a text answer
//   "Tool results:" with one line per result, in order:
//   "- <tool> returned: <text>" or "- <tool> failed: <text>" (is_error), quotes
//   cut to ~300 chars with "…", images as "[image]". Never calls a tool here,
//   so a host's tool loop always ends. stop_reason "end_turn". One exception,
//   tool search (tool-search.ts): when every result answers a
//   `switchboard__search_tools` call, each tool the person's message named that
//   is offered now becomes a tool_use (stop_reason "tool_use"); their results
//   are then quoted as above.
// - Else, in the last user text, tools are named by `call <name> {json}` lines
//   (the JSON object is the input) or by bare mention of a `server__tool` name
//   or of an offered tool's exact name. Each named tool (first appearance, once
//   each, offered or not) becomes a tool_use block after a short text
//   "I'll call <names>.". Missing args are built from the offered tool's
//   input_schema (see schema-args.ts). stop_reason "tool_use". When
//   `switchboard__search_tools` is offered and a named tool is not, it only
//   searches: one `{ "query": "<name>" }` call per tool not offered.
// - Else a short text: it says it is the "offline demo model", echoes
//   `You wrote: "<text>"` and lists the offered tools (with a search tool
//   offered, says other enabled tools can be named). stop_reason "end_turn".
//   When the system text carries the person's instructions (lib/model/
//   instructions.ts), it opens with "I received your instructions for every
//   conversation, starting “<first line>”, and for this conversation, starting
//   “<first line>”." (each part only when that kind is there).
//   With `[demo:history]` in the last user text (history-echo.ts), it then says
//   which history it received: "I received 2 messages from you: “<first
//   words>”, “<first words>”; and 1 answer of mine." (the person's messages
//   with text, in order; the trigger left out of the quotes).
// - One output token per word; past `max_tokens` the text stops and
//   stop_reason is "max_tokens" (later tool calls are dropped).
// - Test triggers in the last user text:
//     `[demo:fail-midstream]` → a few words stream, then the body errors
//       (non-streaming: the JSON body breaks half way);
//     `[demo:overloaded]` → HTTP 529 `{type:'error', error:{type:'overloaded_error', message:'Overloaded'}}`;
//     `[demo:cut-at=N]` → a new answer stops after N words with stop_reason "max_tokens".
// - Continuing a cut answer: when the history ends with an assistant message
//   (a prefill), or with the user message CONTINUE_PROMPT right after one, it
//   answers with the rest of what it would have said to the question before
//   (the words after those already written), stop_reason "end_turn".
// - `GET /v1/models` lists one model, `demo`, with its limits (./models.ts).
// - Streaming is the real SSE format (`event:` + `data:` lines), text word by
//   word with `delayMs` between words; the request's AbortSignal stops it.

export { createDemoFetch, type DemoFetchOptions } from './fetch';
export { HISTORY_TRIGGER } from './history-echo';
export { CUT_AT_TRIGGER, decideReply, FAIL_MIDSTREAM_TRIGGER, OVERLOADED_TRIGGER } from './reply';
export { DEMO_DISPLAY_NAME, DEMO_MODEL_ID } from './models';
export { argsFromSchema } from './schema-args';
export type { DemoReply, DemoRequest, ReplyBlock } from './types';
