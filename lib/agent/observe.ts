import type { AuditOutcome } from '@/db/vocabulary';
import { errorSummary } from '@/lib/log-safe';

import type { EngineDeps } from './deps';

/** How a run ended (`finish`). */
export type TurnEnd = 'completed' | 'failed' | 'cancelled';

/** How a model step came back (`streamModelStep`): a whole message, Stop or a lost lease, or a failure. */
export type ModelStepOutcome = 'message' | 'aborted' | 'error';

/**
 * What the engine tells whoever watches it (the app's Prometheus metrics, lib/ops/metrics.ts).
 * Each method is called once, at the one place the event happens, synchronously and after the
 * fact: the engine never waits for it and never depends on a metrics library.
 */
export interface EngineObserver {
  /** A turn was admitted and stored (`startRun`, after its transaction). */
  turnStarted(): void;
  /** A run reached an end status (`finish`, after its transaction). */
  turnEnded(status: TurnEnd): void;
  /** A tool call reached an end state and was written to the audit log (`auditEndedCalls`). */
  toolCallEnded(outcome: AuditOutcome): void;
  /** One streamed model call: until its end, and until its first content delta (null: none came). */
  modelStep(ms: number, firstDeltaMs: number | null, outcome: ModelStepOutcome): void;
}

/**
 * Tells the observer, if there is one. A failing observer is logged and otherwise ignored: a
 * metrics bug must never fail a turn.
 */
export function observe(deps: Pick<EngineDeps, 'observe'>, event: (observer: EngineObserver) => void): void {
  if (!deps.observe) return;
  try {
    event(deps.observe);
  } catch (err) {
    console.error('[engine] observer failed:', errorSummary(err));
  }
}
