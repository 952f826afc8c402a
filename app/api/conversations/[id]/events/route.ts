import { assertOwned } from '@/lib/chat/service';
import { AppError } from '@/lib/http/errors';
import { holdLikeAColdCompile } from '@/lib/server/cold-compile-hold';
import { eventStreamResponse } from '@/lib/server/events-response';
import { authed, requireUuid } from '@/lib/server/route';

type P = { id: string };

/** SSE: replay after `Last-Event-ID` (or `?after=`), then live until the active run pauses or ends. */
export const GET = authed<P>(async ({ req, rt, session, params }) => {
  await holdLikeAColdCompile();
  const id = requireUuid(params.id, 'conversation');
  await assertOwned(rt, session.user.id, id);
  const raw = req.headers.get('last-event-id') ?? new URL(req.url).searchParams.get('after') ?? '0';
  if (!/^\d{1,15}$/.test(raw)) {
    throw new AppError('bad_request', 'query', `after: must be a non-negative integer event seq (got "${raw}").`, 'after');
  }
  // Opening the stream may continue a run whose instance died (see activeRunOf).
  return eventStreamResponse(rt, session, id, Number(raw), req.signal);
});
