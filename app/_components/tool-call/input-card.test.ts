import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { sampleToolCallView } from '@/test/sample-tool-call';

import { InputCard } from './input-card';

const linkCall = (url: string) =>
  sampleToolCallView({
    status: 'awaiting_input',
    server: 'Bank',
    inputRequests: { page: { method: 'elicitation/create', params: { mode: 'url', message: 'Confirm the transfer.', url } } },
  });

const render = (url: string) => renderToStaticMarkup(createElement(InputCard, { call: linkCall(url), onAnswer: async () => {} }));
const words = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, ' ');

describe("the input card for a server's link (URL-mode elicitation)", () => {
  it("shows the server's message, the link's host on its own and the whole URL, with Open, I've finished, Decline and Cancel", () => {
    const html = render('https://pay.bank.example:8443/confirm?id=42');
    expect(words(html)).toContain('Bank asks you to continue on a web page: Confirm the transfer.');
    expect(html).toMatch(/data-testid="input-link-host"[^>]*>pay\.bank\.example:8443</);
    expect(html).toContain('https://pay.bank.example:8443/confirm?id=42');
    expect(words(html)).toContain('Open pay.bank.example:8443');
    expect(words(html)).toContain('I’ve finished');
    expect(words(html)).toContain('Decline');
    expect(words(html)).toContain('Cancel');
    // Opened only by the person's click (a button), never as a link the page follows by itself.
    expect(html).not.toContain('href=');
  });

  it('refuses a link that hides its real host behind a user name', () => {
    expect(words(render('https://bank.example@evil.example/'))).toContain(
      'Switchboard does not open this link: the link carries a user name or password before its host',
    );
  });

  it('refuses, in words, a link that is not a web page, and offers no way to open or accept it', () => {
    const html = render('javascript:alert(1)');
    expect(words(html)).toContain(
      'Switchboard does not open this link: a "javascript:" link is not a web page (only https links are opened, or http on this machine).',
    );
    expect(html).not.toContain('input-link-host');
    expect(html).toMatch(/<button[^>]*type="submit"[^>]*disabled=""/);
  });
});
