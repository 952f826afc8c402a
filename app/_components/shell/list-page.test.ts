import { Inbox } from 'lucide-react';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { ListPage } from './list-page';

const text = (items: readonly unknown[] | null, loadError = '') =>
  renderToStaticMarkup(
    // eslint-disable-next-line react/no-children-prop -- a .ts test has no JSX, and the props' type requires children
    createElement(ListPage, {
      title: 'Things',
      description: 'What they are.',
      items,
      loadError,
      onRetry: () => {},
      loadingLabel: 'Loading things',
      empty: { icon: Inbox, title: 'No things yet', description: 'Make one.' },
      children: createElement('ul', null, 'the list'),
    }),
  ).replace(/<[^>]+>/g, ' ');

describe('ListPage', () => {
  it('says it is loading until the items come', () => {
    const t = text(null);
    expect(t).toContain('Things');
    expect(t).toContain('Loading things');
    expect(t).not.toContain('the list');
    expect(t).not.toContain('No things yet');
  });

  it('says what failed with Try again, and no spinner', () => {
    const t = text(null, 'Could not load.');
    expect(t).toContain('Could not load.');
    expect(t).toContain('Try again');
    expect(t).not.toContain('Loading things');
  });

  it('shows the empty state for no items, the list for some', () => {
    expect(text([])).toContain('No things yet');
    expect(text([])).not.toContain('the list');
    expect(text([1])).toContain('the list');
    expect(text([1])).not.toContain('No things yet');
  });
});
