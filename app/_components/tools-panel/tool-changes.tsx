import type { ToolEntry } from './tools-view';

/** What changed in a tool's definition since it was allowed: each field, before and after. */
export function ToolChanges({ changes }: { changes: NonNullable<ToolEntry['changes']> }) {
  if (changes.length === 0) return null;
  return (
    <dl className="space-y-2 text-[13px]" data-testid="tool-changes">
      {changes.map((ch) => (
        <div key={ch.field} className="overflow-hidden rounded-control border border-warning-border bg-surface">
          <dt className="border-b border-warning-border px-2.5 py-1 font-medium text-fg">{ch.field}</dt>
          <dd className="grid sm:grid-cols-2">
            <div className="px-2.5 py-1.5">
              <span className="text-xs font-medium text-danger-text">Before</span>
              <p className="mt-0.5 max-h-40 overflow-y-auto whitespace-pre-wrap break-words font-mono text-xs text-fg">
                {ch.before || '—'}
              </p>
            </div>
            <div className="border-warning-border px-2.5 py-1.5 max-sm:border-t sm:border-l">
              <span className="text-xs font-medium text-success-text">After</span>
              <p tabIndex={0} className="mt-0.5 max-h-40 overflow-y-auto whitespace-pre-wrap break-words font-mono text-xs text-fg">
                {ch.after || '—'}
              </p>
            </div>
          </dd>
        </div>
      ))}
    </dl>
  );
}
