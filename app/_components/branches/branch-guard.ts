import type { RunView } from '../types';

/**
 * Why editing, regenerating and moving between versions are not offered right now, or null when
 * they are. The server refuses them (409) while a turn runs or waits for the person; saying so on
 * the button beforehand spares a refused request.
 */
export function branchingBlockedReason(activeRun: Pick<RunView, 'status'> | null): string | null {
  if (!activeRun) return null;
  switch (activeRun.status) {
    case 'awaiting_approval':
      return 'A tool call is waiting for your decision. Decide it or stop the turn first.';
    case 'awaiting_input':
      return 'A tool is waiting for your answer. Answer it or stop the turn first.';
    case 'awaiting_sign_in':
      return 'A server is waiting for you to sign in. Sign in or stop the turn first.';
    default:
      return 'Wait for the answer to finish, or stop it first.';
  }
}
