import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { HintedSwitch } from './hinted-switch';

const render = (props: Partial<Parameters<typeof HintedSwitch>[0]> = {}) =>
  renderToStaticMarkup(
    createElement(HintedSwitch, {
      id: 'trust',
      label: 'Trust it',
      hint: 'What trusting means.',
      checked: true,
      onChange: () => {},
      ...props,
    }),
  );
const attr = (html: string, tag: string, name: string) => new RegExp(`<${tag}[^>]* ${name}="([^"]*)"`).exec(html)?.[1];

describe('HintedSwitch', () => {
  it('names the switch by its label, labels it, and has it read the hint', () => {
    const html = render();
    expect(attr(html, 'button', 'role')).toBe('switch');
    expect(attr(html, 'button', 'aria-label')).toBe('Trust it');
    expect(attr(html, 'button', 'aria-checked')).toBe('true');
    expect(attr(html, 'label', 'for')).toBe('trust');
    expect(attr(html, 'button', 'aria-describedby')).toBe('trust-hint');
    expect(html).toContain('<p id="trust-hint" class="text-[13px] text-muted">What trusting means.</p>');
    expect(html).not.toContain('aria-invalid');
  });

  it('with an error: shows it, reads it before the hint and marks the switch invalid', () => {
    const html = render({ error: 'Not now.' });
    expect(attr(html, 'button', 'aria-describedby')).toBe('trust-error trust-hint');
    expect(attr(html, 'button', 'aria-invalid')).toBe('true');
    expect(html).toContain('<p id="trust-error" class="text-[13px] text-danger-text">Not now.</p>');
  });

  it('in a form, the hint takes a Field hint’s tone', () => {
    expect(render({ inForm: true })).toContain('<p id="trust-hint" class="text-[13px] text-faint">');
  });

  it('makes its own id when given none, shared by the label and the hint', () => {
    const html = render({ id: undefined });
    const id = attr(html, 'button', 'id')!;
    expect(id).toBeTruthy();
    expect(attr(html, 'label', 'for')).toBe(id);
    expect(attr(html, 'button', 'aria-describedby')).toBe(`${id}-hint`);
  });
});
