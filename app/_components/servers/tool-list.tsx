import { CircleSlash, ShieldQuestion, TriangleAlert } from 'lucide-react';

import { Badge, cx } from '@/app/_components/ui';

import { annotationBadges, isDestructive, type AnnotationBadge, type ServerToolView } from './server-view';

/** Annotation badges as outline badges (properties, not states), with the warning and question icons. */
export function AnnotationBadgeList({ badges }: { badges: AnnotationBadge[] }) {
  return (
    <>
      {badges.map((b) => (
        <Badge
          key={b.key}
          appearance="outline"
          tone={b.tone}
          title={b.title}
          icon={b.key === 'destructive' ? TriangleAlert : b.key === 'none' ? ShieldQuestion : undefined}
        >
          {b.label}
        </Badge>
      ))}
    </>
  );
}

/** A tool's annotations as outline badges. */
export function AnnotationBadges({ tool }: { tool: ServerToolView }) {
  return <AnnotationBadgeList badges={annotationBadges(tool.annotations)} />;
}

/**
 * A server's tools: name, title and description, annotations. In a review, destructive tools are
 * highlighted and `mark` labels the new or changed ones.
 */
export function ToolList({
  tools,
  highlightDestructive,
  mark,
  label,
}: {
  tools: ServerToolView[];
  highlightDestructive?: boolean;
  mark?: (tool: ServerToolView) => string | null;
  label: string;
}) {
  if (tools.length === 0) return <p className="text-sm text-muted">No tools listed.</p>;
  return (
    <ul aria-label={label} className="divide-y divide-border rounded-control border border-border">
      {tools.map((tool) => {
        const danger = highlightDestructive && isDestructive(tool);
        const m = mark?.(tool);
        return (
          <li key={tool.name} data-testid="server-tool" className={cx('px-3 py-2.5', danger && 'bg-danger-soft')}>
            <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
              <code className={cx('font-mono text-[13px] font-medium break-all', danger ? 'text-danger-text' : 'text-fg')}>
                {tool.name}
              </code>
              {tool.title && tool.title !== tool.name && <span className="text-sm text-muted">{tool.title}</span>}
              <AnnotationBadges tool={tool} />
              {m && (
                <Badge tone="accent" appearance="soft">
                  {m}
                </Badge>
              )}
            </div>
            {tool.description && <p className="mt-1 line-clamp-3 text-[13px] leading-5 text-muted">{tool.description}</p>}
            {tool.view && <ToolViewLine view={tool.view} />}
          </li>
        );
      })}
    </ul>
  );
}

/** A tool's interactive view, as reviewed: its page's address, who may call the tool, and which page (its hash). */
function ToolViewLine({ view }: { view: NonNullable<ServerToolView['view']> }) {
  return (
    <p data-testid="server-tool-view" className="mt-1 text-[13px] leading-5 text-muted">
      Interactive view <code className="font-mono break-all text-fg">{view.resourceUri}</code>
      {view.modelVisible ? '' : ' · called by its view only, never by the model'} ·{' '}
      {view.contentHash ? (
        <span title={view.contentHash}>
          page <code className="font-mono">{view.contentHash.slice(0, 'sha256:'.length + 12)}</code>
        </span>
      ) : (
        'its page could not be read; it will not be shown'
      )}
    </p>
  );
}

/** Tools the server listed that cannot be used, each with the reason. */
export function SkippedTools({ skipped }: { skipped: { name: string; reason: string }[] }) {
  if (skipped.length === 0) return null;
  return (
    <div>
      <h4 className="flex items-center gap-1.5 text-[13px] font-medium text-muted">
        <CircleSlash className="size-3.5" aria-hidden />
        Left out ({skipped.length})
      </h4>
      <ul className="mt-1.5 space-y-1 text-[13px] leading-5">
        {skipped.map((s) => (
          <li key={s.name}>
            <code className="font-mono font-medium text-fg break-all">{s.name}</code>
            <span className="text-muted"> — {s.reason}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
