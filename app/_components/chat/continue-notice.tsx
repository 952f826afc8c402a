'use client';

import { Info } from 'lucide-react';
import { useState } from 'react';

import { Button } from '../ui/index';

/**
 * Under an answer cut at the model's length limit (`max_tokens`): says so, and Continue asks the
 * model to go on from where it stopped (POST …/messages { continue: true }).
 */
export function ContinueNotice({ onContinue }: { onContinue: () => Promise<void> }) {
  const [busy, setBusy] = useState(false);
  return (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-2 text-[13px] leading-5 text-faint" data-testid="continue-notice">
      <span className="flex items-center gap-1.5">
        <Info className="size-3.5 shrink-0" aria-hidden />
        The answer hit the length limit.
      </span>
      <Button
        size="sm"
        loading={busy}
        onClick={() => {
          setBusy(true);
          void onContinue().finally(() => setBusy(false));
        }}
      >
        Continue
      </Button>
    </div>
  );
}
