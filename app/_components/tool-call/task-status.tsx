import { Server } from 'lucide-react';

import type { CardToolCall } from '../types';
import { cx } from '../ui/index';

type CardTask = NonNullable<CardToolCall['task']>;

const ENDED: Record<Exclude<CardTask['status'], 'working' | 'input_required'>, string> = {
  completed: 'Ran as a task on the server',
  failed: 'The task failed on the server',
  cancelled: 'The task was cancelled on the server',
};

/**
 * One line under a call its server runs as a task (MCP Tasks): while it runs, "Running on the
 * server" and the server's own status message ("40% done"), updated live; once it ended, how.
 * The message is the server's text, shown as text.
 */
export function TaskStatus({ task, callStatus }: { task: CardTask; callStatus: CardToolCall['status'] }) {
  const running = callStatus === 'executing' && (task.status === 'working' || task.status === 'input_required');
  const label = running
    ? task.status === 'input_required'
      ? 'Waiting on the server'
      : 'Running on the server'
    : task.status === 'working' || task.status === 'input_required'
      ? 'Ran as a task on the server'
      : ENDED[task.status];
  const message = running && task.statusMessage ? task.statusMessage : null;
  return (
    <p
      className={cx('mt-1 flex min-w-0 items-center gap-1.5 text-xs', running ? 'text-info-text' : 'text-muted')}
      role={running ? 'status' : undefined}
      data-testid="task-status"
      data-task-status={task.status}
    >
      <Server className={cx('size-3.5 shrink-0', running && 'motion-safe:animate-pulse')} aria-hidden />
      <span className="min-w-0 truncate">
        {label}
        {message && ` — ${message}`}
      </span>
    </p>
  );
}
