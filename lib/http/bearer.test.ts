import { afterEach, describe, expect, it, vi } from 'vitest';

import { requireBearerToken } from './bearer';
import { AppError } from './errors';

const SPEC = { variable: 'SWEEP_TOKEN' as const, surface: 'ops', what: 'ops' };

function refusal(authorization?: string): AppError | null {
  const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
  try {
    requireBearerToken(new Request('http://localhost/api/x', { headers }), SPEC);
    return null;
  } catch (err) {
    return err as AppError;
  }
}

describe('requireBearerToken', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('is 404 without the variable set, so the endpoint does not exist, naming the variable that turns it on', () => {
    vi.stubEnv('SWEEP_TOKEN', '');
    const err = refusal('Bearer anything');
    expect(err).toMatchObject({ status: 404, code: 'not_found:ops' });
    expect(err!.message).toContain('set SWEEP_TOKEN');
  });

  it('is 401 without the header, with another scheme or none, a wrong token of the same or another length', () => {
    vi.stubEnv('SWEEP_TOKEN', 's3cret-token');
    for (const given of [
      undefined,
      'Basic s3cret-token',
      'Bearer s3cret-tokem',
      'Bearer s3cret',
      'Bearer s3cret-token-and-more',
      's3cret-token',
      'Bearer ',
    ]) {
      expect(refusal(given), String(given)).toMatchObject({ status: 401, code: 'unauthorized:ops' });
    }
  });

  it('lets the exact token through', () => {
    vi.stubEnv('SWEEP_TOKEN', 's3cret-token');
    expect(refusal('Bearer s3cret-token')).toBeNull();
  });
});
