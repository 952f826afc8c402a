import { Eye } from 'lucide-react';

import { CodeBlock, Disclosure } from '@/app/_components/ui';

import type { ConversationToolsView } from './tools-view';

/** Exactly the tool definitions the model is offered on the next step, collapsed until asked for. */
export function ModelSees({ offered }: { offered: ConversationToolsView['offered'] }) {
  const json = JSON.stringify(offered, null, 2);
  return (
    <Disclosure
      data-testid="model-sees"
      summary={
        <span className="flex items-center gap-1.5 text-sm font-medium text-fg">
          <Eye className="size-4 text-muted" aria-hidden />
          What the model sees ({offered.length} {offered.length === 1 ? 'tool' : 'tools'})
        </span>
      }
      summaryClassName="py-1"
    >
      <div className="space-y-2">
        <p className="text-[13px] text-muted">
          {offered.length === 0
            ? 'No tools: the model can only answer in words.'
            : `The names, descriptions and input schemas sent with the next step: ${offered.map((o) => o.name).join(', ')}.`}
        </p>
        {offered.length > 0 && (
          // Focusable: it scrolls, and a keyboard must be able to scroll it too.
          <CodeBlock label="tools" copyText={json} wrap maxHeight="md" tabIndex={0}>
            {json}
          </CodeBlock>
        )}
      </div>
    </Disclosure>
  );
}
