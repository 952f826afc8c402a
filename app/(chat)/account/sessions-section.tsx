'use client';

import { LogOut, Monitor, MonitorSmartphone, Smartphone } from 'lucide-react';
import { useRouter } from 'next/navigation';
import { useState } from 'react';

import { api, ApiError } from '@/app/_components/api';
import { Badge, Button, CardBody, CardFooter, Notice } from '@/app/_components/ui';
import type { SessionView } from '@/lib/account/sessions';

import { Section } from './ui';
import { When } from './when';

/** "Chrome on Linux" from a User-Agent header; the header itself when it names no browser we know. */
function describeBrowser(userAgent: string | null): { name: string; mobile: boolean } {
  if (!userAgent) return { name: 'Unknown browser', mobile: false };
  const ua = userAgent;
  const browser = /Edg(A|iOS)?\//.test(ua)
    ? 'Edge'
    : /OPR\/|Opera/.test(ua)
      ? 'Opera'
      : /Firefox\/|FxiOS/.test(ua)
        ? 'Firefox'
        : /Chrome\/|CriOS/.test(ua)
          ? 'Chrome'
          : /Version\/.*Safari\//.test(ua)
            ? 'Safari'
            : null;
  const system = /iPhone|iPad|iPod/.test(ua)
    ? 'iOS'
    : /Android/.test(ua)
      ? 'Android'
      : /CrOS/.test(ua)
        ? 'ChromeOS'
        : /Windows/.test(ua)
          ? 'Windows'
          : /Macintosh|Mac OS X/.test(ua)
            ? 'macOS'
            : /Linux/.test(ua)
              ? 'Linux'
              : null;
  const mobile = /Mobi|Android|iPhone|iPad|iPod/.test(ua);
  if (!browser) return { name: ua, mobile };
  return { name: system ? `${browser} on ${system}` : browser, mobile };
}

/** Where the account is signed in, and "sign out everywhere else". */
export function SessionsSection({ sessions }: { sessions: SessionView[] }) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);
  const others = sessions.filter((s) => !s.current).length;

  async function signOutOthers() {
    setBusy(true);
    setResult(null);
    try {
      const { endedSessions } = await api<{ endedSessions: number }>('/api/account/sessions/others', { method: 'DELETE' });
      setResult({ kind: 'success', text: `Signed out of ${endedSessions} other session${endedSessions === 1 ? '' : 's'}.` });
      router.refresh();
    } catch (err) {
      setResult({ kind: 'error', text: err instanceof ApiError ? err.message : 'Could not sign out the other sessions.' });
    } finally {
      setBusy(false);
    }
  }

  return (
    <Section
      id="sessions-heading"
      title="Signed-in sessions"
      icon={MonitorSmartphone}
      description="The browsers where your account is signed in right now."
    >
      <CardBody className="py-1">
        <ul className="divide-y divide-border" data-testid="session-list">
          {sessions.map((s) => {
            const browser = describeBrowser(s.userAgent);
            const Icon = browser.mobile ? Smartphone : Monitor;
            return (
              <li key={s.id} className="flex gap-3 py-3">
                <span className="flex size-8 shrink-0 items-center justify-center rounded-control bg-surface-sunken text-muted" aria-hidden>
                  <Icon className="size-4" />
                </span>
                <div className="min-w-0 flex-1">
                  <p className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm font-medium text-fg">
                    <span className="min-w-0 break-words" title={s.userAgent ?? undefined}>
                      {browser.name}
                    </span>
                    {s.current && <Badge tone="accent">This browser</Badge>}
                  </p>
                  <p className="mt-0.5 flex flex-col text-xs leading-5 text-faint sm:flex-row sm:flex-wrap sm:gap-x-1.5">
                    <span>
                      Signed in <When iso={s.createdAt} />
                    </span>
                    <span className="max-sm:hidden" aria-hidden>
                      ·
                    </span>
                    <span>
                      Last seen <When iso={s.lastSeenAt} />
                    </span>
                  </p>
                </div>
              </li>
            );
          })}
        </ul>
      </CardBody>
      <CardFooter>
        {result &&
          (result.kind === 'error' ? (
            <Notice tone="error" className="w-full">
              {result.text}
            </Notice>
          ) : (
            <Notice tone="success" role="status" className="w-full">
              {result.text}
            </Notice>
          ))}
        <Button icon={LogOut} loading={busy} disabled={others === 0} onClick={() => void signOutOthers()}>
          Sign out everywhere else
        </Button>
        {others === 0 && !result && <p className="text-[13px] text-faint">No other browser is signed in.</p>}
      </CardFooter>
    </Section>
  );
}
