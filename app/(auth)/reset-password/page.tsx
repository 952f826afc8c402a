import type { Metadata } from 'next';
import Link from 'next/link';

import { LogoMark } from '@/app/_components/shell/logo';
import { Notice } from '@/app/_components/ui';
import { isResetLinkUsable } from '@/lib/account/password-reset';
import { getRuntime } from '@/lib/server/runtime';

import { ResetForm } from './reset-form';

export const dynamic = 'force-dynamic';
// The token is in this page's URL: no Referer may carry it anywhere.
export const metadata: Metadata = { title: 'Set a new password · Switchboard', referrer: 'no-referrer' };

export default async function ResetPasswordPage({ searchParams }: { searchParams: Promise<{ token?: string }> }) {
  const { token } = await searchParams;
  const rt = await getRuntime();
  const usable = typeof token === 'string' && token.length <= 200 && (await isResetLinkUsable(rt.handle.db, token));
  return (
    <main className="flex min-h-full flex-col items-center justify-center px-4 py-12">
      <div className="w-full max-w-sm">
        <div className="mb-8 flex flex-col items-center text-center">
          <LogoMark className="mb-4 size-11 shadow-card [border-radius:22%]" />
          <h1 className="text-2xl font-semibold tracking-tight">Set a new password</h1>
          {usable && <p className="mt-1.5 text-[15px] text-muted">Choose the password you will sign in with from now on.</p>}
        </div>
        {usable ? (
          <ResetForm token={token} />
        ) : (
          <Notice tone="error">This reset link has expired or was already used. Ask the operator for a new one.</Notice>
        )}
        <p className="mt-6 text-center text-sm text-muted">
          <Link href="/sign-in" className="rounded-sm font-medium text-accent-text underline-offset-2 hover:underline">
            Back to sign in
          </Link>
        </p>
      </div>
    </main>
  );
}
