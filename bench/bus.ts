import { createConversation } from '@/db/queries/conversations';
import { createUser } from '@/db/queries/users';
import { createEventBus, type EventBus } from '@/lib/agent/bus';
import type { BusEvent } from '@/lib/agent/events';
import { createRedisEventBus } from '@/lib/agent/redis-bus';

import type { BenchDb } from './databases';
import { summaryRow, type BenchReport } from './report';
import { summarize } from './stats';

/**
 * Issue 28: the database's bus beside Redis pub/sub (`BENCH_REDIS_URL`, else `REDIS_URL`), each
 * from a sender to a receiver on connections of its own: how long an event takes from the call to
 * the receiver (live deltas alone; stored events including their write), and the CPU of this
 * process (sender and receiver together) per live delta in a burst. On Postgres when
 * BENCH_DATABASE_URL is set, else on PGlite (where the database's bus is in-process).
 */

const SECTION = 'bus';
const ROUND_TRIPS = 300;
const BURST = 5000;

export async function busFigures(report: BenchReport, dbs: BenchDb[]): Promise<void> {
  const db = dbs.find((d) => d.kind === 'postgres') ?? dbs[0]!;
  const redisUrl = process.env.BENCH_REDIS_URL ?? process.env.REDIS_URL;
  const buses: { name: string; sender: EventBus; receiver: EventBus; close(): Promise<void> }[] = [
    {
      name: db.kind === 'postgres' ? 'Postgres NOTIFY' : 'PGlite in-process',
      sender: createEventBus(db.handle),
      receiver: createEventBus(db.handle),
      close: async () => {},
    },
  ];
  if (redisUrl) {
    const sender = createRedisEventBus(db.handle, redisUrl, { name: 'switchboard-bench-send' });
    const receiver = createRedisEventBus(db.handle, redisUrl, { name: 'switchboard-bench-receive' });
    buses.push({
      name: `Redis pub/sub over ${db.kind}`,
      sender,
      receiver,
      close: async () => void (await Promise.all([sender.close(), receiver.close()])),
    });
  } else {
    report.note(SECTION, 'Redis not measured: set BENCH_REDIS_URL or REDIS_URL.');
  }

  for (const bus of buses) {
    try {
      await measure(report, db, bus);
    } finally {
      await bus.close();
    }
  }
}

async function measure(report: BenchReport, db: BenchDb, bus: { name: string; sender: EventBus; receiver: EventBus }) {
  const user = (await createUser(db.handle.db, { email: `bench-bus-${Date.now()}@example.test`, passwordHash: 'x' }))!;
  const conversation = await createConversation(db.handle.db, { userId: user.id, model: 'demo' });
  let arrived: ((e: BusEvent) => void) | undefined;
  let received = 0;
  const off = await bus.receiver.subscribe(conversation.id, (e) => {
    received++;
    arrived?.(e);
  });
  const next = () => new Promise<BusEvent>((resolve) => (arrived = resolve));
  const delta = (offset: number) => ({ messageId: 'm', blockIndex: 0, offset, text: 'twenty characters..!' });
  try {
    const live: number[] = [];
    const stored: number[] = [];
    for (let i = 0; i < ROUND_TRIPS; i++) {
      const got = next();
      const t0 = performance.now();
      bus.sender.live(conversation.id, null, 'message.delta', delta(i));
      await got;
      live.push(performance.now() - t0);
      const gotStored = next();
      const t1 = performance.now();
      await bus.sender.persist(conversation.id, null, 'message.delta', delta(i));
      await gotStored;
      stored.push(performance.now() - t1);
    }
    report.add(
      summaryRow(SECTION, `live delta, send → receive (${bus.name})`, summarize(live), 'ms'),
      summaryRow(SECTION, `stored event, write → receive (${bus.name})`, summarize(stored), 'ms'),
    );

    // A burst as many streaming conversations make it: sent in ticks of 50, every one received.
    arrived = undefined;
    const before = received;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < BURST; i++) {
      bus.sender.live(conversation.id, null, 'message.delta', delta(i));
      if (i % 50 === 49) await new Promise((r) => setImmediate(r));
    }
    while (received - before < BURST && performance.now() - t0 < 30_000) await new Promise((r) => setTimeout(r, 2));
    const cpu = process.cpuUsage(cpu0);
    const lost = BURST - (received - before);
    report.add({
      section: SECTION,
      figure: `CPU per live delta in a burst of ${BURST.toLocaleString('en')}, sender + receiver (${bus.name})`,
      value: (cpu.user + cpu.system) / BURST,
      unit: 'µs',
      n: BURST,
      note: `${Math.round(performance.now() - t0)} ms for the burst${lost ? `; ${lost} not received in 30 s` : ''}`,
    });
  } finally {
    off();
  }
}
