import { describe, expect, it } from 'vitest';

import { elicitationLink, MAX_ELICITATION_LINK_CHARS } from './elicitation-link';

describe('elicitationLink', () => {
  it('offers an https page with the host the person judges', () => {
    expect(elicitationLink('https://pay.example/confirm?step=2')).toEqual({
      ok: true,
      url: 'https://pay.example/confirm?step=2',
      host: 'pay.example',
    });
  });

  it('offers plain http only for a page on this machine', () => {
    expect(elicitationLink('http://127.0.0.1:3111/step')).toMatchObject({ ok: true, host: '127.0.0.1:3111' });
    expect(elicitationLink('http://localhost/step')).toMatchObject({ ok: true });
    expect(elicitationLink('http://pay.example/confirm')).toEqual({
      ok: false,
      problem: 'a plain http link to pay.example can be read or changed on the way (only https links are opened)',
    });
  });

  it('refuses what is not a web page, hides its host, or is too long', () => {
    expect(elicitationLink('javascript:alert(1)')).toMatchObject({ ok: false, problem: expect.stringContaining('"javascript:" link') });
    expect(elicitationLink('https://bank.example@evil.example/')).toMatchObject({ ok: false, problem: expect.stringMatching(/user name/) });
    expect(elicitationLink(`https://a.example/${'x'.repeat(MAX_ELICITATION_LINK_CHARS)}`)).toMatchObject({
      ok: false,
      problem: 'the link is longer than 8,192 characters',
    });
    expect(elicitationLink('')).toEqual({ ok: false, problem: 'the link is missing' });
  });
});
