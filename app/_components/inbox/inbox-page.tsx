'use client';

import { Inbox } from 'lucide-react';

import { Button, EmptyState, Notice, Spinner } from '../ui/index';
import { ClientApprovalCard } from './client-approval-card';
import { useInbox } from './inbox-context';

/** The "Other clients" inbox: calls of the person's MCP clients (through /mcp) that wait for their decision. */
export function InboxPage() {
  const { calls, loadError, reload, decide } = useInbox();
  return (
    <div className="h-full overflow-y-auto">
      <div className="mx-auto max-w-3xl space-y-6 px-4 py-8 sm:py-12">
        <div className="min-w-0">
          <h1 className="text-2xl font-semibold tracking-tight">Other clients</h1>
          <p className="mt-1.5 text-[15px] text-muted">
            Tool calls that MCP clients you connected on the Account page made through Switchboard, waiting for your decision. The client
            waits until you decide; each call runs at most once, and your Activity log records it under the client’s name.
          </p>
        </div>
        {loadError && (
          <Notice
            tone="error"
            actions={
              <Button size="sm" onClick={() => void reload()}>
                Try again
              </Button>
            }
          >
            {loadError}
          </Notice>
        )}
        {!calls && !loadError && (
          <div className="flex justify-center py-12">
            <Spinner size="md" label="Loading calls waiting for you" />
          </div>
        )}
        {calls && calls.length === 0 && (
          <div className="rounded-card border border-dashed border-border-strong py-10">
            <EmptyState
              icon={Inbox}
              title="Nothing waits for you"
              description="When an MCP client calls one of your tools that needs your approval, it appears here, in every open tab."
            />
          </div>
        )}
        {calls && calls.length > 0 && (
          <div className="space-y-4">
            {calls.map((call) => (
              <ClientApprovalCard key={call.id} call={call} onDecide={decide} />
            ))}
          </div>
        )}
      </div>
    </div>
  );
}
