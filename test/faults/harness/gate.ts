import { sql } from 'drizzle-orm';

import type { Db } from '@/db/connection';

/**
 * Holds an instance at one exact point of a tool turn, on the real Postgres: after the step's
 * assistant message and its calls are committed, at the write that marks a call `executing` —
 * the instant between "the model asked" and "the tool started". A trigger of the test's own
 * database (never of the app) waits while the gate is shut; an instance killed there leaves the
 * call `auto_approved`, since released the waiting write fails and its transaction rolls back.
 */
export interface ToolStartGate {
  /** Resolves once an instance is waiting at the gate. */
  waitHeld(timeoutMs?: number): Promise<void>;
  /** Opens the gate: the write that waited fails (its instance is dead by then), later ones pass. */
  release(): Promise<void>;
}

export async function holdToolStarts(db: Db): Promise<ToolStartGate> {
  await db.execute(
    sql.raw(`
    create table if not exists fault_gate (name text primary key);
    create or replace function fault_gate_hold() returns trigger language plpgsql as $$
    begin
      if new.status = 'executing' and exists (select 1 from fault_gate where name = 'tool_start') then
        loop
          perform pg_sleep(0.05);
          exit when not exists (select 1 from fault_gate where name = 'tool_start');
        end loop;
        raise exception 'fault gate released: this write is abandoned';
      end if;
      return new;
    end $$;
    drop trigger if exists fault_gate_hold on tool_calls;
    create trigger fault_gate_hold before update on tool_calls for each row execute function fault_gate_hold();
    insert into fault_gate values ('tool_start') on conflict do nothing;
  `),
  );
  return {
    async waitHeld(timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const result = await db.execute(
          sql`select count(*)::int as n from pg_stat_activity
              where datname = current_database() and wait_event = 'PgSleep' and query ilike '%tool_calls%'`,
        );
        if (((result as unknown as { rows: { n: number }[] }).rows[0]?.n ?? 0) > 0) return;
        if (Date.now() > deadline) throw new Error('no instance reached the tool-start gate');
        await new Promise((r) => setTimeout(r, 30));
      }
    },
    async release() {
      await db.execute(sql`delete from fault_gate where name = 'tool_start'`);
    },
  };
}
