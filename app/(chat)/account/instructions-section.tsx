'use client';

import { ScrollText } from 'lucide-react';
import { useState } from 'react';

import { api, ApiError } from '@/app/_components/api';
import { draftProblem, InstructionsField } from '@/app/_components/instructions/instructions-field';
import { Button, CardBody, CardFooter } from '@/app/_components/ui';
import type { InstructionsView } from '@/lib/account/instructions';

import { Section } from './ui';

/**
 * The person's own instructions for every conversation (how to answer, who they are): sent to the
 * model as system text, before any conversation's own. Saving empty text clears them.
 */
export function InstructionsSection({ initial }: { initial: string }) {
  const [text, setText] = useState(initial);
  const [saved, setSaved] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [justSaved, setJustSaved] = useState(false);
  const changed = text.trim() !== saved;
  // Only while there is something to say: the page has other status messages (the password's).
  const status = justSaved && !changed ? (saved ? 'Saved.' : 'Removed.') : changed ? 'Not saved yet.' : '';

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    const problem = draftProblem(text, 'personal');
    if (problem) return setError(problem);
    setBusy(true);
    setError(null);
    try {
      const view = await api<InstructionsView>('/api/account/instructions', { method: 'PUT', body: { text } });
      setSaved(view.text);
      setText(view.text);
      setJustSaved(true);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not save your instructions.');
    } finally {
      setBusy(false);
    }
  }

  return (
    <Section
      id="instructions-heading"
      title="Instructions"
      icon={ScrollText}
      description={
        <>
          How the model should answer you, and what it should know about you. They go with every message, in every conversation; a
          conversation&rsquo;s own instructions (in its header) come after them. Shared and forked conversations never include them.
        </>
      }
    >
      <form onSubmit={submit}>
        <CardBody className="space-y-4 pb-4">
          <InstructionsField
            id="personal-instructions"
            label="Your instructions"
            kind="personal"
            value={text}
            onChange={(next) => {
              setText(next);
              setJustSaved(false);
              setError(null);
            }}
            error={error}
            hint="Applies from your next message. Save it empty to remove them."
            placeholder="For example: I am a nurse in Lyon. Answer briefly, in metric units, and say when you are unsure."
          />
        </CardBody>
        <CardFooter>
          <Button type="submit" variant="primary" loading={busy} disabled={!changed && !busy}>
            Save instructions
          </Button>
          {status && (
            <span role="status" className="text-sm text-muted" data-testid="personal-instructions-status">
              {status}
            </span>
          )}
        </CardFooter>
      </form>
    </Section>
  );
}
