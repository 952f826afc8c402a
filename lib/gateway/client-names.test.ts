import { describe, expect, it } from 'vitest';

import { clientNames } from './client-names';

/** Own names only when every one is legal, distinct and not Switchboard's; otherwise all stay prefixed. */
describe('clientNames', () => {
  const names = (own: string[]) => clientNames(own, { own: (n) => n, namespaced: (n) => `srv__${n}` }, { ownNames: true });

  it('gives own names while every one is legal and distinct', () => {
    expect(names(['search', 'read-file'])).toEqual(['search', 'read-file']);
  });

  it('keeps every name prefixed when one is illegal, holds "__", or is Switchboard\'s own', () => {
    expect(names(['search', 'read file'])).toEqual(['srv__search', 'srv__read file']);
    expect(names(['search', 'x'.repeat(65)])[0]).toBe('srv__search');
    expect(names(['search', 'notes__get'])).toEqual(['srv__search', 'srv__notes__get']);
    expect(names(['search', 'switchboard_ask'])).toEqual(['srv__search', 'srv__switchboard_ask']);
    expect(names(['search', 'search'])).toEqual(['srv__search', 'srv__search']);
  });
});
