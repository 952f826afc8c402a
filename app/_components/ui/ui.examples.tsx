/**
 * How the tool cards are meant to be put together from these components: compiled by the type
 * checker, rendered nowhere. A guide for moving tool-call-card, approval-card, input-card and
 * tool-result-view off Tailwind's palette (then app/legacy-cards.css can go).
 */
import { MessageCircleQuestion, ShieldAlert, TriangleAlert } from 'lucide-react';

import { Badge, type BadgeTone } from './badge';
import { Button } from './button';
import { Card, CardBody, CardFooter, CardHeader } from './card';
import { CodeBlock } from './code-block';
import { Disclosure } from './disclosure';
import { Field, Input, Select } from './field';
import { Notice } from './notice';

/** Tool-call status as data: its words and its badge tone (soft badges are states). */
export const STATUS_BADGE: Record<string, { label: string; tone: BadgeTone }> = {
  proposed: { label: 'Proposed', tone: 'neutral' },
  pending_approval: { label: 'Needs your approval', tone: 'warning' },
  approved: { label: 'Approved', tone: 'accent' },
  auto_approved: { label: 'Allowed automatically', tone: 'accent' },
  denied: { label: 'Denied', tone: 'danger' },
  rejected: { label: 'Not run', tone: 'danger' },
  executing: { label: 'Running', tone: 'info' },
  awaiting_input: { label: 'Waiting for your input', tone: 'warning' },
  succeeded: { label: 'Done', tone: 'success' },
  errored: { label: 'Failed', tone: 'danger' },
  timed_out: { label: 'Timed out', tone: 'danger' },
  unknown: { label: 'Outcome unknown', tone: 'danger' },
  cancelled: { label: 'Cancelled', tone: 'neutral' },
};

/** Properties of a tool are outline badges: read-only (neutral), destructive (danger), untrusted (warning). */
export function AnnotationBadgesExample() {
  return (
    <>
      <Badge appearance="outline" title="The server says this tool only reads.">
        read-only
      </Badge>
      <Badge appearance="outline" tone="danger" icon={TriangleAlert}>
        destructive
      </Badge>
      <Badge appearance="outline" tone="warning">
        untrusted server
      </Badge>
    </>
  );
}

/** A finished call, folded: the header is the summary, arguments and result open under it. */
export function ToolCallCardExample({ failed }: { failed: boolean }) {
  const status = STATUS_BADGE[failed ? 'errored' : 'succeeded']!;
  return (
    <Card tone={failed ? 'danger' : 'default'} data-testid="tool-call" data-status={failed ? 'errored' : 'succeeded'}>
      <Disclosure
        className="px-4 py-3"
        summary={
          <span className="flex flex-wrap items-center gap-2">
            <code className="font-mono text-[13px] font-semibold">notes · search</code>
            <Badge tone={status.tone}>{status.label}</Badge>
            <AnnotationBadgesExample />
            <span className="text-xs tabular-nums text-faint">120 ms</span>
          </span>
        }
        contentClassName="space-y-3 border-t border-border pt-3"
      >
        <CodeBlock label="Arguments" wrap maxHeight="sm">
          {JSON.stringify({ query: 'groceries' }, null, 2)}
        </CodeBlock>
        <CodeBlock label="Result" tone={failed ? 'danger' : 'default'} wrap maxHeight="md">
          {failed ? 'Error: the server did not answer in time' : '{ "notes": [] }'}
        </CodeBlock>
        <p className="text-xs text-faint">Policy: a trusted server marks this tool as read-only.</p>
      </Disclosure>
    </Card>
  );
}

/** A call waiting for the person: the exact arguments, warnings as a Notice, the choices in the footer. */
export function ApprovalCardExample() {
  return (
    <Card as="section" tone="warning" aria-label="Approve Notes create?" data-testid="approval-card">
      <CardHeader
        icon={ShieldAlert}
        title={<code className="font-mono text-[13px]">Notes · create</code>}
        badges={<Badge tone="warning">Needs your approval</Badge>}
        description="This tool may change something: it needs approval."
      />
      <CardBody>
        <Notice tone="warning">The arguments mention a URL outside this server.</Notice>
        <CodeBlock label="Exact arguments" wrap maxHeight="md" data-testid="approval-arguments">
          {JSON.stringify({ title: 'Groceries', body: 'milk' }, null, 2)}
        </CodeBlock>
        <p className="font-mono text-[11px] text-faint">args 1f3a…</p>
      </CardBody>
      <CardFooter>
        <Button variant="primary" size="sm">
          Allow once
        </Button>
        <Button size="sm">Edit…</Button>
        <Button variant="danger-subtle" size="sm">
          Deny…
        </Button>
        <Button variant="ghost" size="sm" className="ml-auto">
          Stop
        </Button>
      </CardFooter>
    </Card>
  );
}

/** A server asking mid-call (elicitation): its fields as Field + Input / Select, errors through Field. */
export function InputCardExample() {
  return (
    <Card as="section" tone="info" aria-label="Notes asks for input" data-testid="input-card">
      <CardHeader
        icon={MessageCircleQuestion}
        title="Notes asks: which folder?"
        badges={<Badge tone="info">Waiting for your input</Badge>}
      />
      <CardBody>
        <Field label="Folder" required hint="Where the note goes.">
          <Select defaultValue="">
            <option value="">Choose…</option>
            <option>Home</option>
          </Select>
        </Field>
        <Field label="Tag" error="A tag has no spaces.">
          <Input defaultValue="two words" />
        </Field>
      </CardBody>
      <CardFooter>
        <Button variant="primary" size="sm" type="submit">
          Submit
        </Button>
        <Button size="sm">Decline</Button>
        <Button variant="ghost" size="sm">
          Cancel
        </Button>
      </CardFooter>
    </Card>
  );
}
