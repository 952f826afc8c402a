'use client';

import { History } from 'lucide-react';
import { useState } from 'react';

import { Button, Notice } from '../ui';

/**
 * Under a question left without an answer on this branch (another answer to it failed before its
 * first word): its earlier answers are still there, on the branch before; one click shows them.
 */
export function EarlierAnswers({ count, onShow }: { count: number; onShow: () => Promise<void> }) {
  const [busy, setBusy] = useState(false);
  return (
    <Notice
      tone="info"
      data-testid="earlier-answers"
      actions={
        <Button
          size="sm"
          icon={History}
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            try {
              await onShow();
            } finally {
              setBusy(false);
            }
          }}
        >
          {count === 1 ? 'Show the earlier answer' : 'Show the latest earlier answer'}
        </Button>
      }
    >
      {count === 1 ? 'This message has an earlier answer.' : `This message has ${count} earlier answers.`} The new one did not arrive.
    </Notice>
  );
}
