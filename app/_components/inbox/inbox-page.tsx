'use client';

import { Inbox } from 'lucide-react';

import { ListPage } from '../shell/list-page';
import { ClientApprovalCard } from './client-approval-card';
import { useInbox } from './inbox-context';

/** The "Other clients" inbox: calls of the person's MCP clients (through /mcp) that wait for their decision. */
export function InboxPage() {
  const { calls, loadError, reload, decide } = useInbox();
  return (
    <ListPage
      title="Other clients"
      description={
        <>
          Tool calls that MCP clients you connected on the Account page made through Switchboard, waiting for your decision. The client
          waits until you decide; each call runs at most once, and your Activity log records it under the client’s name.
        </>
      }
      items={calls}
      loadError={loadError}
      onRetry={reload}
      loadingLabel="Loading calls waiting for you"
      empty={{
        icon: Inbox,
        title: 'Nothing waits for you',
        description: 'When an MCP client calls one of your tools that needs your approval, it appears here, in every open tab.',
      }}
    >
      <div className="space-y-4">
        {calls?.map((call) => (
          <ClientApprovalCard key={call.id} call={call} onDecide={decide} />
        ))}
      </div>
    </ListPage>
  );
}
