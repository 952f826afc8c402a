'use client';

import { Code, NotebookPen, Search, Wrench, type LucideIcon } from 'lucide-react';

import { useComposerDraft } from '../composer/composer-draft';
import { LogoMark } from '../shell/logo';
import { Badge, cx, EmptyState } from '../ui/index';

type Example = { title: string; note: string; prompt: string; icon: LucideIcon };

// Each names a built-in tool with its exact input, the way the offline demo model needs it (a real
// model reads them just as well). Between them they show the paths: read-only tools run at once;
// anything else is off until switched on in the conversation's Tools panel, then asks first.
const EXAMPLES: Example[] = [
  {
    title: 'Run some JavaScript',
    note: 'The sandbox runs at once',
    prompt: 'call sandbox__run_js {"code": "[1, 2, 3, 4].map((n) => n * n)"}',
    icon: Code,
  },
  {
    title: 'Save a note',
    note: 'Switch it on under Tools; it asks first',
    prompt: 'call notes__create {"title": "Groceries", "body": "milk, eggs, bread"}',
    icon: NotebookPen,
  },
  {
    title: 'Search your notes',
    note: 'Only reads: runs at once',
    prompt: 'call notes__search {"query": "groceries"}',
    icon: Search,
  },
  {
    title: 'Which tools are on?',
    note: 'Lists the tools this chat offers',
    prompt: 'Which tools can you use in this conversation?',
    icon: Wrench,
  },
];

// The label lib/model gives the offline demo model (importing it would pull the SDK into the page).
const isDemoModel = (label: string) => label.startsWith('Demo model');

/** The first screen of a chat: what Switchboard does, which model answers, and examples one tap away. */
export function EmptyConversation({ modelLabel }: { modelLabel: string }) {
  const draft = useComposerDraft();
  const demo = isDemoModel(modelLabel);
  return (
    <EmptyState
      className="mx-auto w-full max-w-2xl py-10 sm:py-16"
      mark={<LogoMark className="mb-5 size-12 shadow-card [border-radius:22%]" />}
      title="What can I help with?"
      description={
        <>
          <p>
            Claude answers here and can use tools on your MCP servers. Built-in tools that only read are on and run at once; anything else
            you switch on under Tools in the conversation, and it waits for your approval, with the exact arguments in front of you.
          </p>
          <p className="mt-3 flex flex-wrap items-center justify-center gap-2 text-sm">
            <span>Model: {modelLabel}</span>
            {demo && (
              <Badge tone="warning" appearance="outline">
                offline
              </Badge>
            )}
          </p>
          {demo && (
            <p className="mt-2 text-sm text-faint">
              The demo model writes no real answers: it calls the tool you name, as in{' '}
              <code className="whitespace-nowrap font-mono">call tool {'{json}'}</code>.
            </p>
          )}
        </>
      }
    >
      {draft && (
        <ul className="grid gap-2 text-left sm:grid-cols-2" aria-label="Examples">
          {EXAMPLES.map((example) => (
            <li key={example.title}>
              <button
                type="button"
                onClick={() => draft.fill(example.prompt)}
                className={cx(
                  'flex h-full w-full items-start gap-3 rounded-card border border-border bg-surface px-3.5 py-3 text-left shadow-card',
                  'transition-colors hover:border-border-strong hover:bg-surface-hover',
                )}
              >
                <example.icon className="mt-0.5 size-4 shrink-0 text-accent-text" aria-hidden />
                <span className="min-w-0">
                  <span className="block text-sm font-medium text-fg">{example.title}</span>
                  <span className="block text-[13px] text-muted">{example.note}</span>
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </EmptyState>
  );
}
