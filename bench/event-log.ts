import { createConversation } from '@/db/queries/conversations';
import { appendEvent } from '@/db/queries/events';
import { createUser } from '@/db/queries/users';
import { createEventBus } from '@/lib/agent/bus';
import { openEventStream } from '@/lib/agent/sse';

import type { BenchDb } from './databases';
import { summaryRow, type BenchReport } from './report';
import { summarize } from './stats';

/** Issue 12, figure 6: sequential appends to a conversation's event log, and the SSE replay of 5,000 events. */

const SECTION = 'event log';
const EVENTS = 5000;
const REPLAYS = 5;

export async function eventLogFigures(report: BenchReport, dbs: BenchDb[]): Promise<void> {
  for (const { kind, handle } of dbs) {
    const user = (await createUser(handle.db, { email: `bench-log-${Date.now()}-${kind}@example.test`, passwordHash: 'x' }))!;
    const conversation = await createConversation(handle.db, { userId: user.id, model: 'demo' });
    const t0 = performance.now();
    for (let i = 0; i < EVENTS; i++) {
      await appendEvent(handle.db, {
        conversationId: conversation.id,
        runId: null,
        type: 'message.delta',
        data: { messageId: 'm', blockIndex: 0, offset: i * 20, text: 'twenty characters..!' },
      });
    }
    const appendMs = performance.now() - t0;
    report.add({
      section: SECTION,
      figure: `appends per second, one at a time (${kind})`,
      value: EVENTS / (appendMs / 1000),
      unit: '/s',
      n: EVENTS,
    });

    const bus = createEventBus(handle);
    const replay: number[] = [];
    let bytes = 0;
    for (let i = 0; i < REPLAYS; i++) {
      const r0 = performance.now();
      const stream = await openEventStream({ db: handle.db, bus, conversationId: conversation.id, afterSeq: 0 });
      bytes = (await new Response(stream!).arrayBuffer()).byteLength;
      replay.push(performance.now() - r0);
    }
    report.add(
      summaryRow(SECTION, `SSE replay of ${EVENTS.toLocaleString('en')} events (${kind})`, summarize(replay), 'ms', {
        note: `${Math.round(bytes / 1024)} KB`,
      }),
    );
  }
}
