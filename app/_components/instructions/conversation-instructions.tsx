'use client';

import { ScrollText } from 'lucide-react';
import { useState, useSyncExternalStore } from 'react';
import { createPortal } from 'react-dom';

import { api, ApiError } from '../api';
import { InHeaderSlot } from '../shell/header-slot';
import type { ConversationView } from '../types';
import { Button, Dialog, HeaderButton } from '../ui';
import { draftProblem, InstructionsField } from './instructions-field';

/**
 * This conversation's instructions: a button in its header (on a phone, in the shell's header),
 * marked while instructions are set, and the dialog that edits them. They are sent to the model as
 * system text after the person's own (account page), from the next message on; a share or a fork
 * never carries them.
 */
export function ConversationInstructions({
  conversationId,
  initial,
  track,
}: {
  conversationId: string;
  initial: string;
  /** Registers the save, so a message sent meanwhile waits for it (../pending-settings.ts). */
  track?: <T>(save: Promise<T>) => Promise<T>;
}) {
  const [saved, setSaved] = useState(initial);
  const [open, setOpen] = useState(false);
  // Each opening is a fresh dialog that starts from what is saved.
  const [openings, setOpenings] = useState(0);
  // The dialog lives at the end of the body: the desktop header it is declared in is hidden on a phone.
  const body = useSyncExternalStore(noSubscription, bodyElement, noBody);
  const onOpen = () => {
    setOpenings((n) => n + 1);
    setOpen(true);
  };
  const button = (className?: string) => <InstructionsButton set={Boolean(saved)} open={open} onOpen={onOpen} className={className} />;
  return (
    <>
      {button()}
      <InHeaderSlot>{button('md:hidden')}</InHeaderSlot>
      {body &&
        createPortal(
          <InstructionsDialog
            key={openings}
            open={open}
            onClose={() => setOpen(false)}
            conversationId={conversationId}
            saved={saved}
            onSaved={setSaved}
            track={track}
          />,
          body,
        )}
    </>
  );
}

const noSubscription = () => () => {};
const bodyElement = () => document.body;
const noBody = () => null;

function InstructionsButton({ set, open, onOpen, className }: { set: boolean; open: boolean; onOpen: () => void; className?: string }) {
  const label = set ? 'Instructions (set for this conversation)' : 'Instructions';
  return (
    <HeaderButton
      text="Instructions"
      icon={ScrollText}
      open={open}
      onOpen={onOpen}
      iconOnlyOnPhone
      emphasized={set}
      data-testid="conversation-instructions-button"
      data-set={set}
      aria-label={label}
      title={set ? 'This conversation has its own instructions' : 'Instructions for this conversation'}
      className={className}
    >
      {/* Set: a dot beside the word (and on the icon alone on a phone), not colour alone — the label says it too. */}
      {set && <span className="size-1.5 rounded-full bg-accent max-md:absolute max-md:right-1.5 max-md:top-2" aria-hidden />}
    </HeaderButton>
  );
}

function InstructionsDialog({
  open,
  onClose,
  conversationId,
  saved,
  onSaved,
  track,
}: {
  open: boolean;
  onClose: () => void;
  conversationId: string;
  saved: string;
  onSaved: (text: string) => void;
  track?: <T>(save: Promise<T>) => Promise<T>;
}) {
  const [text, setText] = useState(saved);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function save(next: string) {
    const problem = draftProblem(next, 'conversation');
    if (problem) return setError(problem);
    setBusy(true);
    setError(null);
    try {
      const request = api<ConversationView>(`/api/conversations/${conversationId}`, { method: 'PATCH', body: { instructions: next } });
      const view = await (track ? track(request) : request);
      onSaved(view.instructions);
      onClose();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Could not save the instructions.');
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog
      open={open}
      onClose={onClose}
      size="lg"
      title="Instructions for this conversation"
      description={
        'Sent to the model with every message here, after your own instructions (Account). They apply from your next ' +
        'message; a share or a fork of this conversation never includes them.'
      }
      footer={
        <>
          {saved && (
            <Button variant="ghost" onClick={() => void save('')} disabled={busy} className="mr-auto">
              Remove
            </Button>
          )}
          <Button onClick={onClose}>Cancel</Button>
          <Button variant="primary" loading={busy} onClick={() => void save(text)} disabled={text.trim() === saved && !busy}>
            Save
          </Button>
        </>
      }
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save(text);
        }}
      >
        <InstructionsField
          id="conversation-instructions"
          label="Instructions"
          kind="conversation"
          value={text}
          onChange={(next) => {
            setText(next);
            setError(null);
          }}
          error={error}
          hint="Save it empty, or Remove, to take them away."
          placeholder="For example: We are planning a trip to Japan in April. Answer in French."
          autoFocus
        />
      </form>
    </Dialog>
  );
}
