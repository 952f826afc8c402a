import type { DemoRequest, OfferedTool, RequestMessage } from './types';

// Minimal validation of a `POST /v1/messages` body. Only what the demo needs
// to answer is checked, and each problem names its field the way the real API
// does (`messages.0.content: ...`), so a host bug shows up as a readable 400
// instead of a crash inside the demo.

/** Used when a raw caller leaves `max_tokens` out (the SDK always sends it). */
const DEFAULT_MAX_TOKENS = 4096;

export type ParseResult = { ok: true; request: DemoRequest } | { ok: false; message: string };

export function parseRequestBody(raw: string): ParseResult {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return fail('The request body is not valid JSON.');
  }
  if (!isObject(body)) return fail('The request body must be a JSON object.');

  if (!('messages' in body)) return fail('messages: Field required (an array of messages).');
  if (!Array.isArray(body.messages)) return fail('messages: Input should be an array of messages.');
  const messages: RequestMessage[] = [];
  for (const [i, message] of body.messages.entries()) {
    if (!isObject(message)) return fail(`messages.${i}: Input should be an object with role and content.`);
    if (typeof message.role !== 'string') return fail(`messages.${i}.role: Field required (a string).`);
    const content = message.content;
    if (typeof content !== 'string' && !Array.isArray(content)) {
      return fail(`messages.${i}.content: Input should be a string or an array of content blocks.`);
    }
    if (Array.isArray(content)) {
      const bad = content.findIndex((block) => !isObject(block) || typeof block.type !== 'string');
      if (bad >= 0) return fail(`messages.${i}.content.${bad}.type: Field required (a string).`);
    }
    messages.push({ role: message.role, content } as RequestMessage);
  }

  let maxTokens = DEFAULT_MAX_TOKENS;
  if ('max_tokens' in body) {
    if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1) {
      return fail('max_tokens: Input should be a positive integer.');
    }
    maxTokens = body.max_tokens as number;
  }

  const tools: OfferedTool[] = [];
  if (body.tools !== undefined && body.tools !== null) {
    if (!Array.isArray(body.tools)) return fail('tools: Input should be an array of tools.');
    for (const [i, tool] of body.tools.entries()) {
      if (!isObject(tool) || typeof tool.name !== 'string') return fail(`tools.${i}.name: Field required (a string).`);
      tools.push(tool as OfferedTool);
    }
  }

  // Extended thinking, checked as the API checks it: at least 1,024 tokens, and fewer than max_tokens.
  let thinking: DemoRequest['thinking'] = null;
  if (isObject(body.thinking) && body.thinking.type === 'enabled') {
    const budget = body.thinking.budget_tokens;
    if (!Number.isInteger(budget) || (budget as number) < 1024)
      return fail('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
    if ((budget as number) >= maxTokens) return fail('`max_tokens` must be greater than `thinking.budget_tokens`.');
    thinking = { budgetTokens: budget as number };
  }

  const system =
    typeof body.system === 'string'
      ? body.system
      : Array.isArray(body.system)
        ? body.system.map((b) => (isObject(b) && typeof b.text === 'string' ? b.text : '')).join('\n')
        : '';

  return {
    ok: true,
    request: {
      system,
      model: typeof body.model === 'string' && body.model ? body.model : 'demo',
      max_tokens: maxTokens,
      messages,
      tools,
      stream: body.stream === true,
      thinking,
    },
  };
}

/** Rough input token count: about four characters per token, as a real tokenizer averages. */
export function estimateInputTokens(raw: string): number {
  // An image or a PDF sent as base64 costs by its pixels and pages, not its length: each counts
  // as about an image's worth (the API scales large images to about 1,600 tokens).
  let binaries = 0;
  const rest = raw.replace(BASE64_DATA, () => {
    binaries++;
    return '"data":""';
  });
  return Math.max(1, Math.ceil(rest.length / 4) + binaries * 1600);
}

const BASE64_DATA = /"data":"[A-Za-z0-9+/=]{1024,}"/g;

function fail(message: string): ParseResult {
  return { ok: false, message };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
