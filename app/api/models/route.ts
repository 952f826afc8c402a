import { listModels } from '@/lib/chat/model-choice';
import { authed } from '@/lib/server/route';

/** The models a conversation may use (the endpoint's listing, cached), their limits, and the default. */
export const GET = authed(async ({ rt }) => Response.json(await listModels(rt)));
