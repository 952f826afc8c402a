import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { InstructionsSection } from './instructions-section';

describe('the account page’s Instructions section', () => {
  it('shows the saved text with its count, and no status message until there is one (the page has others)', () => {
    const html = renderToStaticMarkup(createElement(InstructionsSection, { initial: 'I am Ada.\nUse metric units.' }));
    expect(html).toContain('I am Ada.\nUse metric units.</textarea>');
    expect(html).toContain('27 / 4,000 characters');
    expect(html).toContain('aria-labelledby="instructions-heading"');
    expect(html).not.toContain('role="status"');
  });
});
