'use client';

import { KeyRound } from 'lucide-react';
import { useState } from 'react';

import type { SignInReason } from '@/db/vocabulary';

import { api, ApiError } from '../api';
import type { ToolCallView } from '../types';
import { Button, Card, CardBody, CardFooter, CardHeader, Notice } from '../ui/index';
import { ToolCallHeader } from './tool-call-header';

// Keyed by the reason union: a new reason does not compile until it has its words here.
const WHY: Record<SignInReason, (scopes: string[]) => string> = {
  first_use: () => 'You have not connected this server yet.',
  expired: () => 'Your sign-in to it has expired.',
  insufficient_scope: (scopes) => `This tool needs more access than you gave before${scopes.length ? ` (${scopes.join(', ')})` : ''}.`,
  revoked: () => 'Your access to it was revoked.',
};

/**
 * Where the provider's page is; the server's route (POST /api/servers/:id/oauth/start) says, and
 * brings the person back to `returnTo` (this conversation) afterwards. Throws an ApiError in words.
 */
export async function startSignIn(serverId: string, serverName: string, returnTo: string): Promise<string> {
  try {
    const res = await api<{ authorizationUrl?: unknown }>(`/api/servers/${encodeURIComponent(serverId)}/oauth/start`, {
      method: 'POST',
      body: { returnTo },
    });
    const url = typeof res?.authorizationUrl === 'string' ? res.authorizationUrl : '';
    if (!/^https?:\/\//i.test(url)) throw new ApiError(502, 'bad_response', `Switchboard did not say where to sign in to ${serverName}.`);
    return url;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404 && err.code === 'unknown') {
      throw new ApiError(404, 'unavailable', `Signing in to ${serverName} is not available on this Switchboard yet.`);
    }
    throw err;
  }
}

/**
 * A call that waits for the person to sign in to its server (OAuth): which server, why, and
 * Connect, which opens the provider's page and comes back here; the call then runs and the turn
 * goes on by itself. Stop ends the turn instead.
 */
export function SignInCard({
  call,
  onStop,
  after = 'The turn goes on once you are back.',
}: {
  call: ToolCallView;
  onStop: () => void;
  /** What happens once the person is back: the turn goes on, or (a view's call) the view is asked again. */
  after?: string;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const signIn = call.signIn;
  const serverName = signIn?.serverName ?? call.server ?? 'This server';
  const tool = call.tool ?? call.modelName;

  async function connect() {
    if (!signIn) return;
    setBusy(true);
    setError('');
    try {
      const here = `${window.location.pathname}${window.location.search}`;
      window.location.assign(await startSignIn(signIn.serverId, serverName, here));
    } catch (err) {
      setError(err instanceof ApiError ? err.message : `Could not start signing in to ${serverName}.`);
      setBusy(false);
    }
  }

  return (
    <Card as="section" tone="warning" data-testid="sign-in-card" aria-label={`${serverName} needs you to sign in`}>
      <CardHeader icon={KeyRound} title={<ToolCallHeader call={call} />} />
      <CardBody>
        <p className="text-[15px] text-fg">
          <span className="font-semibold">{serverName}</span> needs you to sign in before <span className="font-mono">{tool}</span> can run.
        </p>
        {signIn && (
          <p className="text-sm text-muted">
            {WHY[signIn.reason](visibleScopes(signIn.scopes))} {after}
          </p>
        )}
        {error && <Notice tone="error">{error}</Notice>}
      </CardBody>
      <CardFooter>
        <Button variant="primary" size="sm" loading={busy} disabled={!signIn} onClick={() => void connect()}>
          Connect {serverName}
        </Button>
        <Button variant="ghost" size="sm" className="ml-auto" disabled={busy} onClick={onStop}>
          Cancel
        </Button>
      </CardFooter>
    </Card>
  );
}

/** Scopes that say what the tool may do; protocol ones (a refresh token, an OpenID identity) mean nothing to a person. */
function visibleScopes(scopes: string[]): string[] {
  return scopes.filter((s) => !['offline_access', 'openid'].includes(s));
}
