'use client';

import { useEffect, useId, useState } from 'react';

import type { FileView } from '../files/file-view';
import { ArgumentsForm } from './arguments-form';
import { AttachmentChips, useAcceptAttachments } from './attachment-chips';
import {
  addAttachment,
  atQuery,
  listingProblems,
  moveActive,
  promptArguments,
  promptFormProblems,
  promptItems,
  resourceAttachment,
  resourceItems,
  slashQuery,
  withoutAtQuery,
  type AttachmentRef,
  type ComposerAttachment,
  type PromptItem,
  type ResourceItem,
} from './composer-offers';
import { OfferList, type OfferOption } from './offer-list';
import { resourceOption, TemplateForm } from './resource-picker';
import { useComposerOffers } from './use-composer-offers';

export interface PromptRef {
  serverId: string;
  name: string;
  arguments: Record<string, string>;
}

/** What the composer sends besides the text. */
export interface SendExtras {
  prompt?: PromptRef;
  /** Servers' resources, and files uploaded for this message (`{fileId}`). */
  attachments?: (AttachmentRef | { fileId: string })[];
  /** The uploaded files themselves, to show the sent message at once; not part of the request. */
  files?: FileView[];
}

type OpenForm = { kind: 'prompt'; item: PromptItem } | { kind: 'template'; item: Extract<ResourceItem, { kind: 'template' }> };

/**
 * The composer's menus: `/` at the start of an empty message lists the servers' prompts, `@`
 * before the caret lists their resources and templates; both filter as the person types and are
 * driven by the keyboard from the textarea (arrows, Enter or Tab to choose, Escape to close). A
 * prompt with arguments, or a template, opens a small form in the menu's place. Chosen resources
 * become chips above the text. Without a conversation (the new-chat page) there are no menus.
 */
export function useComposerMenus({
  conversationId,
  text,
  setText,
  focusText,
  onRunPrompt,
}: {
  conversationId: string | undefined;
  text: string;
  setText: (text: string) => void;
  focusText: () => void;
  /** Runs a prompt (a turn starts); false when it was refused, so the form stays open. */
  onRunPrompt: (prompt: PromptRef) => Promise<boolean>;
}) {
  const offers = useComposerOffers(conversationId ?? '');
  const listId = useId();
  const [caret, setCaret] = useState(0);
  const [dismissed, setDismissed] = useState<string | null>(null);
  const [form, setForm] = useState<OpenForm | null>(null);
  const [attachments, setAttachments] = useState<ComposerAttachment[]>([]);
  useAcceptAttachments((a) => {
    setAttachments((list) => addAttachment(list, a));
    focusText();
  });

  const slash = conversationId ? slashQuery(text) : null;
  const at = conversationId && slash === null ? atQuery(text, caret) : null;
  const token = slash !== null ? `/${slash}` : at ? `@${at.start}:${at.query}` : null;
  const kind = form || token === null || token === dismissed ? null : slash !== null ? 'prompts' : 'resources';
  // The active option belongs to the query it was moved in: a new query starts at the top.
  const [moved, setMoved] = useState<{ token: string | null; index: number }>({ token: null, index: 0 });
  const active = moved.token === token ? moved.index : 0;

  const { load } = offers;
  useEffect(() => {
    if (kind) load(kind);
  }, [kind, load]);

  const offer = kind === 'prompts' ? offers.prompts : offers.resources;
  const prompts = kind === 'prompts' && offers.prompts.status === 'ready' ? promptItems(offers.prompts.servers, slash ?? '') : [];
  const resources =
    kind === 'resources' && offers.resources.status === 'ready' ? resourceItems(offers.resources.servers, at?.query ?? '') : [];
  const count = kind === 'prompts' ? prompts.length : resources.length;

  function closeForm() {
    setForm(null);
    focusText();
  }

  function choose(index: number) {
    if (kind === 'prompts') {
      const item = prompts[index];
      if (!item) return;
      setText('');
      if (item.prompt.arguments.length === 0) void onRunPrompt({ serverId: item.serverId, name: item.prompt.name, arguments: {} });
      else setForm({ kind: 'prompt', item });
      return;
    }
    const item = resources[index];
    if (!item) return;
    setText(withoutAtQuery(text, caret));
    if (item.kind === 'template') setForm({ kind: 'template', item });
    else setAttachments((list) => addAttachment(list, resourceAttachment(item)));
  }

  /** The textarea's keys while a menu is open; true when the menu took the key. */
  function onKeyDown(e: React.KeyboardEvent<HTMLTextAreaElement>): boolean {
    if (!kind) return false;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      setMoved({ token, index: moveActive(active, count, e.key === 'ArrowDown' ? 1 : -1) });
      return true;
    }
    if ((e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) || e.key === 'Tab') {
      if (count === 0) return false;
      e.preventDefault();
      choose(active);
      return true;
    }
    if (e.key === 'Escape') {
      e.preventDefault();
      setDismissed(token);
      return true;
    }
    return false;
  }

  const options: OfferOption[] =
    kind === 'prompts'
      ? prompts.map((p) => ({
          key: p.key,
          title: `/${p.prompt.name}`,
          detail:
            p.prompt.title && p.prompt.description
              ? `${p.prompt.title} — ${p.prompt.description}`
              : (p.prompt.description ?? p.prompt.title),
          server: p.serverName,
          note: argumentsNote(p),
        }))
      : resources.map(resourceOption);

  const popover = form ? (
    form.kind === 'prompt' ? (
      <ArgumentsForm
        title={form.item.prompt.title ?? form.item.prompt.name}
        server={form.item.serverName}
        description={form.item.prompt.description}
        fields={form.item.prompt.arguments}
        submitLabel="Run prompt"
        problemsOf={(values) => promptFormProblems(form.item.prompt, values)}
        onCancel={closeForm}
        onSubmit={async (values) => {
          const { serverId, prompt } = form.item;
          if (await onRunPrompt({ serverId, name: prompt.name, arguments: promptArguments(prompt, values) })) closeForm();
        }}
      />
    ) : (
      <TemplateForm
        item={form.item}
        onCancel={closeForm}
        onAttach={(attachment) => {
          setAttachments((list) => addAttachment(list, attachment));
          closeForm();
        }}
      />
    )
  ) : kind ? (
    <OfferList
      id={listId}
      label={kind === 'prompts' ? 'Prompts from your servers' : 'Resources from your servers'}
      options={options}
      active={active}
      onChoose={choose}
      onHover={(index) => setMoved({ token, index })}
      loading={offer.status === 'loading' || offer.status === 'idle'}
      problems={offer.status === 'failed' ? [offer.message] : offer.status === 'ready' ? listingProblems(offer.servers) : []}
      empty={
        offer.status === 'failed'
          ? 'Nothing to show.'
          : kind === 'prompts'
            ? slash
              ? `No prompt matches “${slash}”.`
              : 'None of your enabled servers offers prompts.'
            : at?.query
              ? `No resource matches “${at.query}”.`
              : 'None of your enabled servers offers resources.'
      }
    />
  ) : null;

  return {
    /** Shown above the composer while a menu or a form is open. */
    popover,
    chips: <AttachmentChips attachments={attachments} onRemove={(i) => setAttachments((list) => list.filter((_, j) => j !== i))} />,
    attachments: attachments.map((a) => a.ref),
    clearAttachments: () => setAttachments([]),
    onKeyDown,
    /** Where the caret is (the `@` query is the word before it). */
    onCaret: (position: number) => setCaret(position),
    textareaProps: kind
      ? { 'aria-controls': listId, 'aria-activedescendant': count > 0 ? `${listId}-${active}` : undefined }
      : { 'aria-controls': undefined, 'aria-activedescendant': undefined },
  };
}

function argumentsNote(p: PromptItem): string | undefined {
  const n = p.prompt.arguments.length;
  if (n === 0) return undefined;
  const required = p.prompt.arguments.filter((a) => a.required).length;
  return `${n} argument${n === 1 ? '' : 's'}${required ? `, ${required} required` : ''}`;
}
