import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { sampleToolCallView } from '@/test/sample-tool-call';

import { MessageList } from '../chat/message-list';
import { ToolCallCard } from '../tool-call/tool-call-card';
import type { ToolCallView } from '../types';
import {
  createShareBody,
  DEFAULT_SHARE_OPTIONS,
  describeLink,
  forkNote,
  formatWhen,
  linkOptionsInWords,
  newerMessagesInWords,
  sharedMetadata,
  sharedSubtitle,
  shareUnavailableReason,
  signInToReturnHref,
  toolDetailsSentence,
  type SharedMessageView,
  type SharedToolCallView,
  type ShareLinkView,
} from './share-view';

const when = (iso: string) => formatWhen(iso, { timeZone: 'UTC', locale: 'en-GB' });
const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

function link(over: Partial<ShareLinkView> = {}): ShareLinkView {
  return {
    id: 'l1',
    conversationId: 'c1',
    conversationTitle: 'Trip plans',
    includeToolDetails: false,
    includeFiles: false,
    audience: 'anyone',
    createdAt: '2026-12-01T10:00:00.000Z',
    expiresAt: null,
    expired: false,
    snapshotAt: '2026-12-01T10:00:00.000Z',
    updated: false,
    messageCount: 4,
    newerMessages: 0,
    ...over,
  };
}

/** A call as a shared page gets it: no argument hash, questions, sign-in or grant offer. */
function sharedCall(over: Partial<SharedToolCallView> = {}): SharedToolCallView {
  const full: Partial<ToolCallView> = sampleToolCallView({
    status: 'succeeded',
    startedAt: '2026-12-01T10:00:00.000Z',
    endedAt: '2026-12-01T10:00:01.000Z',
  });
  // Taken out, as the server does.
  for (const key of ['argsHash', 'inputRequests', 'signIn', 'allowForSession'] as const) delete full[key];
  return { ...(full as SharedToolCallView), detailsHidden: false, ...over };
}

describe('the Share dialog', () => {
  it('starts with tool details and files hidden, open to anyone with the link, never expiring, and sends all four', () => {
    expect(DEFAULT_SHARE_OPTIONS).toEqual({ includeToolDetails: false, includeFiles: false, audience: 'anyone', expiresIn: 'never' });
    expect(createShareBody({ includeToolDetails: true, includeFiles: true, audience: 'signed_in', expiresIn: '7d' })).toEqual({
      includeToolDetails: true,
      includeFiles: true,
      audience: 'signed_in',
      expiresIn: '7d',
    });
  });

  it('says what a reader sees of tool calls either way', () => {
    expect(toolDetailsSentence(false)).toBe('Readers see which server and tool ran and how it ended, but not the arguments or the result.');
    expect(toolDetailsSentence(true)).toContain('arguments and result');
  });

  it('is unavailable until a turn has finished: not on an empty conversation, nor while the first turn runs or waits', () => {
    expect(shareUnavailableReason([], undefined)).toMatch(/^Nothing to share yet/);
    expect(
      shareUnavailableReason(
        [
          { role: 'user', runId: 'r1' },
          { role: 'assistant', runId: 'r1' },
        ],
        'r1',
      ),
    ).not.toBeNull();
    expect(shareUnavailableReason([{ role: 'assistant', runId: 'r1' }], undefined)).toBeNull();
    expect(
      shareUnavailableReason(
        [
          { role: 'assistant', runId: 'r1' },
          { role: 'assistant', runId: 'r2' },
        ],
        'r2',
      ),
    ).toBeNull();
  });
});

describe('the owner’s list of links', () => {
  it('says each link’s options in words', () => {
    expect(linkOptionsInWords(link(), when)).toBe('Anyone with the link · tool details hidden · never expires');
    expect(linkOptionsInWords(link({ audience: 'signed_in', includeToolDetails: true, expiresAt: '2026-12-08T10:00:00.000Z' }), when)).toBe(
      'Signed-in users only · tool details included · expires 8 Dec 2026, 10:00',
    );
    expect(linkOptionsInWords(link({ expiresAt: '2026-12-02T10:00:00.000Z', expired: true }), when)).toContain('expired 2 Dec 2026');
  });

  it('counts what the link leaves out and offers Update to newest only then, and only while it opens', () => {
    expect(newerMessagesInWords(0)).toBeNull();
    expect(newerMessagesInWords(1)).toBe('1 newer message not in the link');
    expect(newerMessagesInWords(3)).toBe('3 newer messages not in the link');
    expect(describeLink(link({ newerMessages: 2 }), when).canUpdate).toBe(true);
    expect(describeLink(link({ newerMessages: 0 }), when).canUpdate).toBe(false);
    expect(describeLink(link({ newerMessages: 2, expired: true }), when).canUpdate).toBe(false);
  });

  it('dates the snapshot, and says when it was moved to the newest message', () => {
    expect(describeLink(link(), when).snapshot).toBe('Snapshot of 1 Dec 2026, 10:00 · 4 messages');
    expect(describeLink(link({ updated: true, snapshotAt: '2026-12-03T09:30:00.000Z', messageCount: 1 }), when).snapshot).toBe(
      'Updated to the newest message on 3 Dec 2026, 09:30 · 1 message',
    );
  });

  it('never carries a token: a row is made only of the link view, which has none', () => {
    expect(JSON.stringify(describeLink(link(), when))).not.toMatch(/token|\/share\//);
  });
});

describe('the shared page', () => {
  it('says it is a shared conversation, with the snapshot date, or when it was updated', () => {
    expect(sharedSubtitle({ snapshotAt: '2026-12-01T10:00:00.000Z', updatedAt: null }, when)).toBe(
      'Shared conversation · snapshot of 1 Dec 2026, 10:00',
    );
    expect(sharedSubtitle({ snapshotAt: '2026-12-03T10:00:00.000Z', updatedAt: '2026-12-03T10:00:00.000Z' }, when)).toBe(
      'Shared conversation · updated on 3 Dec 2026, 10:00',
    );
  });

  it('gives link previews the title only, and a plain title for a link that opens nothing', () => {
    expect(sharedMetadata({ title: 'Trip plans' }).title).toBe('Trip plans · Shared conversation · Switchboard');
    expect(sharedMetadata(null)).toEqual({
      title: 'Shared conversation · Switchboard',
      description: 'A read-only conversation shared from Switchboard.',
    });
  });

  it('sends a signed-out reader to sign in and back to the link', () => {
    expect(signInToReturnHref('tok_EN-123')).toBe('/sign-in?next=%2Fshare%2Ftok_EN-123');
  });

  it('shows a call without its details as server, tool and outcome, and a line saying the owner hid the rest', () => {
    const html = renderToStaticMarkup(
      createElement(ToolCallCard, { call: sharedCall({ detailsHidden: true, input: {} }), readOnly: true }),
    );
    expect(text(html)).toContain('Docs · write');
    expect(text(html)).toContain('Done');
    expect(text(html)).toContain('Arguments and result hidden by the owner');
    expect(html).not.toContain('Arguments</');
    expect(html).not.toContain('activity');
  });

  it('shows a call with its details when the owner included them, without the link to the owner’s activity log', () => {
    const call = sharedCall({ input: { text: 'hello there' } });
    const html = renderToStaticMarkup(createElement(ToolCallCard, { call, readOnly: true }));
    expect(html).toContain('hello there');
    expect(html).not.toContain('See it in the activity log');
    // The owner's own page keeps the link.
    expect(renderToStaticMarkup(createElement(ToolCallCard, { call: sampleToolCallView({ status: 'succeeded' }) }))).toContain(
      'See it in the activity log',
    );
  });

  it('never draws an approval, a question or a sign-in card, whatever a call’s status says', () => {
    const messages: SharedMessageView[] = [
      {
        id: 'm1',
        seq: 1,
        role: 'user',
        content: [{ type: 'text', text: 'Please write it' }],
        runId: 'run-1',
        stopReason: null,
        createdAt: '',
      },
      {
        id: 'm2',
        seq: 2,
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'tu_1', name: 'docs__write', input: {} }],
        runId: 'run-1',
        stopReason: null,
        createdAt: '',
      },
    ];
    for (const status of ['pending_approval', 'awaiting_input', 'awaiting_sign_in'] as const) {
      const html = renderToStaticMarkup(
        createElement(MessageList, { readOnly: true, messages, toolCalls: { tu_1: sharedCall({ status, detailsHidden: true }) } }),
      );
      expect(html).toContain('data-testid="tool-call"');
      expect(html).not.toMatch(/approval-card|input-card|sign-in-card|Allow once|Deny/);
      // The only buttons are for copying a message (reading, not acting on the owner's calls).
      const buttons = [...html.matchAll(/<button[^>]*>/g)].map((m) => /aria-label="([^"]*)"/.exec(m[0])?.[1]);
      expect(buttons).toEqual(['Copy message']);
    }
  });

  it('says where a continued conversation came from', () => {
    expect(forkNote({ title: 'Trip plans', snapshotAt: '2026-12-01T10:00:00.000Z', toolDetailsHidden: false }, when)).toBe(
      'Continued from a shared conversation “Trip plans” (snapshot of 1 Dec 2026, 10:00).',
    );
    expect(forkNote({ title: 'Trip plans', snapshotAt: '2026-12-01T10:00:00.000Z', toolDetailsHidden: true }, when)).toContain(
      'kept the tool calls’ arguments and results back',
    );
  });
});
