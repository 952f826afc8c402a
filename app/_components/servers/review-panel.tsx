'use client';

import { ListChecks, TriangleAlert } from 'lucide-react';
import { useState } from 'react';

import { api, ApiError } from '@/app/_components/api';
import { Button, Card, CardBody, CardFooter, CardHeader, Notice } from '@/app/_components/ui';

import { enableBody, isDestructive, reviewMark, type ServerView } from './server-view';
import { ToolList } from './tool-list';

/**
 * What a server will be able to do, shown before anything is enabled: after it is added, and
 * whenever its tools changed. "Enable these tools" binds the consent to the exact definitions
 * shown (each tool's fingerprint).
 */
export function ReviewPanel({
  server,
  onEnabled,
  headingRef,
}: {
  server: ServerView;
  onEnabled: (server: ServerView) => void;
  headingRef?: React.Ref<HTMLHeadingElement>;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const headingId = `review-${server.id}`;
  const destructive = server.tools.filter(isDestructive).length;
  const changed = server.tools.some((t) => t.reviewed);

  async function enable() {
    setBusy(true);
    setError('');
    try {
      const { server: next } = await api<{ server: ServerView }>(`/api/servers/${server.id}/enable`, {
        method: 'POST',
        body: enableBody(server),
      });
      onEnabled(next);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not enable the tools.');
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card as="section" tone="warning" aria-labelledby={headingId} data-testid="review-panel" className="shadow-none">
      <CardHeader
        icon={ListChecks}
        title={
          <h4 id={headingId} ref={headingRef} tabIndex={-1} className="text-sm outline-none">
            {changed ? 'Its tools changed: review them' : 'Review what this server will be able to do'}
          </h4>
        }
        description={
          <>
            {changed
              ? 'Until you enable the new definitions, the changed tools stay off in every conversation.'
              : 'Nothing is enabled yet. These are the tools Claude will be able to ask to use.'}
            {destructive > 0 && (
              <span className="mt-1 flex items-center gap-1.5 font-medium text-danger-text">
                <TriangleAlert className="size-4 shrink-0" aria-hidden />
                {destructive === 1 ? '1 tool says it can delete or overwrite.' : `${destructive} tools say they can delete or overwrite.`}
              </span>
            )}
          </>
        }
      />
      <CardBody>
        <ToolList
          tools={server.tools}
          highlightDestructive
          mark={(t) => reviewMark(server, t)}
          label={`Tools to review for ${server.name}`}
        />
        {error && <Notice tone="error">{error}</Notice>}
      </CardBody>
      <CardFooter className="border-warning-border">
        <Button variant="primary" size="sm" loading={busy} onClick={() => void enable()}>
          Enable these tools
        </Button>
        <span className="text-[13px] text-muted">You still approve each call that needs it.</span>
      </CardFooter>
    </Card>
  );
}
