'use client';

import { Check, Copy } from 'lucide-react';
import { useEffect, useState } from 'react';

import { IconButton } from './icon-button';

/** Copies `text` to the clipboard and says so for two seconds. */
export function CopyButton({ text, label = 'Copy', className }: { text: string | (() => string); label?: string; className?: string }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(false), 2000);
    return () => clearTimeout(t);
  }, [copied]);
  return (
    <IconButton
      icon={copied ? Check : Copy}
      label={copied ? 'Copied' : label}
      className={className}
      onClick={() => {
        // The clipboard needs a secure context (https or localhost); elsewhere the button does nothing.
        void navigator.clipboard
          ?.writeText(typeof text === 'function' ? text() : text)
          .then(() => setCopied(true))
          .catch(() => {});
      }}
    />
  );
}
