'use client';

import { Download, History, ListFilter, ShieldCheck } from 'lucide-react';
import { useCallback, useEffect, useState } from 'react';

import { AUDIT_OUTCOMES } from '@/db/vocabulary';

import { api, ApiError } from '../api';
import { Button, buttonClasses, cx, EmptyState, Field, Input, Notice, Select, Spinner } from '../ui';
import { ActivityEntryCard } from './activity-entry-card';
import {
  activityPath,
  EXPORT_HREF,
  NO_FILTERS,
  OUTCOME_BADGE,
  verifyNotice,
  type ActivityEntry,
  type ActivityFilters,
  type ActivityPage as Page,
  type VerifyResult,
} from './activity-view';

type Option = { id: string; label: string };

/**
 * The person's activity log: every tool call and grant change, newest first, filtered and paged,
 * with a check of the chain and an export. Opened from a tool-call card (`?toolCall=<id>`) it
 * shows that call's entry, highlighted, until "Show everything".
 */
export function ActivityPage({
  toolCall,
  conversations,
  servers,
}: {
  toolCall: string | null;
  conversations: Option[];
  servers: Option[];
}) {
  const [filters, setFilters] = useState<ActivityFilters>(NO_FILTERS);
  const [applied, setApplied] = useState<ActivityFilters>(NO_FILTERS);
  const [only, setOnly] = useState(toolCall);
  const [entries, setEntries] = useState<ActivityEntry[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<{ message: string; field?: string } | null>(null);
  const [verify, setVerify] = useState<VerifyResult | 'checking' | null>(null);
  // On a phone the six filters would fill the first screen: they fold behind a button there.
  const [filtersShown, setFiltersShown] = useState(false);
  const appliedCount = Object.values(applied).filter(Boolean).length;

  // State is set only once the page arrives (never synchronously in the effect).
  const load = useCallback(
    (from: string | null) =>
      api<Page>(activityPath(applied, { cursor: from, toolCall: only })).then(
        (page) => {
          setEntries((prev) => (from && prev ? [...prev, ...page.entries] : page.entries));
          setCursor(page.nextCursor);
          setError(null);
        },
        (err) =>
          setError(err instanceof ApiError ? { message: err.message, field: err.field } : { message: 'Could not load your activity.' }),
      ),
    [applied, only],
  );
  useEffect(() => {
    void load(null);
  }, [load]);
  const loadOlder = () => {
    setLoading(true);
    void load(cursor).finally(() => setLoading(false));
  };

  const runVerify = async () => {
    setVerify('checking');
    try {
      setVerify(await api<VerifyResult>('/api/activity/verify'));
    } catch (err) {
      setVerify(null);
      setError({ message: err instanceof ApiError ? err.message : 'Could not check your activity log.' });
    }
  };
  const set = (key: keyof ActivityFilters) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) =>
    setFilters((f) => ({ ...f, [key]: e.target.value }));
  const fieldError = (field: string) => (error?.field === field ? error.message : undefined);
  const notice = verify && verify !== 'checking' ? verifyNotice(verify) : null;

  return (
    <div className="h-full overflow-y-auto">
      <div className="mx-auto max-w-3xl space-y-6 px-4 py-8 sm:py-12">
        <div className="flex flex-wrap items-end justify-between gap-4">
          <div className="min-w-0">
            <h1 className="text-2xl font-semibold tracking-tight">Activity</h1>
            <p className="mt-1.5 text-[15px] text-muted">
              Every tool call and every change to what tools may do, signed so that a change to the log shows. Nothing here can be edited.
            </p>
          </div>
          <div className="flex flex-wrap gap-2">
            <Button icon={ShieldCheck} onClick={() => void runVerify()} disabled={verify === 'checking'}>
              {verify === 'checking' ? 'Checking…' : 'Verify'}
            </Button>
            <a href={EXPORT_HREF} download className={buttonClasses({ variant: 'secondary' })}>
              <Download className="size-4" aria-hidden />
              Export
            </a>
          </div>
        </div>

        {notice && (
          <Notice tone={notice.tone} title={notice.title} role={notice.tone === 'error' ? 'alert' : 'status'} data-testid="verify-result">
            {notice.text}
          </Notice>
        )}

        {only ? (
          <Notice
            tone="info"
            role="status"
            actions={
              <Button size="sm" variant="ghost" onClick={() => setOnly(null)}>
                Show everything
              </Button>
            }
          >
            Showing the entry of one tool call.
          </Notice>
        ) : (
          <>
            <Button
              className="sm:hidden"
              icon={ListFilter}
              aria-expanded={filtersShown}
              aria-controls="activity-filters"
              onClick={() => setFiltersShown((shown) => !shown)}
            >
              {filtersShown ? 'Hide filters' : appliedCount > 0 ? `Filters (${appliedCount})` : 'Filters'}
            </Button>
            <form
              id="activity-filters"
              className={cx('grid gap-3 rounded-card border border-border bg-surface p-4 sm:grid-cols-3', !filtersShown && 'max-sm:hidden')}
              aria-label="Filter the activity"
              onSubmit={(e) => {
                e.preventDefault();
                setApplied(filters);
              }}
            >
              <Field label="Conversation" error={fieldError('conversation')}>
                <Select value={filters.conversation} onChange={set('conversation')}>
                  <option value="">Any</option>
                  {conversations.map((c) => (
                    <option key={c.id} value={c.id}>
                      {c.label}
                    </option>
                  ))}
                </Select>
              </Field>
              <Field label="Server" error={fieldError('server')}>
                <Select value={filters.server} onChange={set('server')}>
                  <option value="">Any</option>
                  {servers.map((s) => (
                    <option key={s.id} value={s.id}>
                      {s.label}
                    </option>
                  ))}
                </Select>
              </Field>
              <Field label="Tool" error={fieldError('tool')}>
                <Input value={filters.tool} onChange={set('tool')} placeholder="e.g. search" />
              </Field>
              <Field label="Outcome" error={fieldError('outcome')}>
                <Select value={filters.outcome} onChange={set('outcome')}>
                  <option value="">Any</option>
                  {AUDIT_OUTCOMES.map((o) => (
                    <option key={o} value={o}>
                      {OUTCOME_BADGE[o].label}
                    </option>
                  ))}
                </Select>
              </Field>
              <Field label="From" error={fieldError('from')}>
                <Input type="date" value={filters.from} onChange={set('from')} />
              </Field>
              <Field label="To" error={fieldError('to')}>
                <Input type="date" value={filters.to} onChange={set('to')} />
              </Field>
              <div className="flex gap-2 sm:col-span-3">
                <Button type="submit" variant="primary">
                  Apply filters
                </Button>
                <Button
                  type="button"
                  variant="ghost"
                  onClick={() => {
                    setFilters(NO_FILTERS);
                    setApplied(NO_FILTERS);
                  }}
                >
                  Clear
                </Button>
              </div>
            </form>
          </>
        )}

        {error && !error.field && <Notice tone="error">{error.message}</Notice>}
        {!entries && !error && (
          <div className="flex justify-center py-12">
            <Spinner size="md" label="Loading activity" />
          </div>
        )}
        {entries && entries.length === 0 && (
          <div className="rounded-card border border-dashed border-border-strong py-10">
            <EmptyState
              icon={History}
              headingLevel="h2"
              title={only ? 'No entry for this tool call yet' : 'Nothing here yet'}
              description={
                only
                  ? 'A call gets its entry when it finishes (it ran, failed, was denied or was not run).'
                  : 'Tool calls appear here once they finish, and grant changes as you make them.'
              }
            />
          </div>
        )}
        {entries && entries.length > 0 && (
          <ol className="space-y-3" aria-label="Activity entries, newest first">
            {entries.map((e) => (
              <li key={e.id}>
                <ActivityEntryCard entry={e} highlighted={e.content.kind === 'tool_call' && e.content.toolCallId === only} />
              </li>
            ))}
          </ol>
        )}
        {cursor && (
          <div className="flex justify-center">
            <Button onClick={loadOlder} disabled={loading}>
              {loading ? 'Loading…' : 'Show older'}
            </Button>
          </div>
        )}
      </div>
    </div>
  );
}
