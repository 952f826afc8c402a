import { processSingleton } from '@/lib/process-singleton';

// One count per process, whatever bundle increments or reads it (see processSingleton).
const state = processSingleton('statementCount', () => ({ sent: 0 }));

/**
 * The statements this process has sent to its database (drizzle's queries and each NOTIFY, as
 * `StatementObserver` sees them; BEGIN / COMMIT not counted), for GET /api/metrics: divided by
 * the turns ended, the statements per turn of a running instance.
 */
export function countStatement(): void {
  state.sent++;
}

export function statementsSent(): number {
  return state.sent;
}
