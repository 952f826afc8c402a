import type { Metadata } from 'next';
import Link from 'next/link';

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
    <main className="flex min-h-full items-center justify-center px-4 py-12">
      <div className="w-full max-w-sm">
        <h1 className="mb-8 text-center text-2xl font-semibold">Set a new password</h1>
        <div className="rounded-2xl border border-stone-200 bg-white p-6 shadow-sm">
          {usable ? (
            <ResetForm token={token} />
          ) : (
            <p role="alert" className="rounded-lg bg-red-50 px-3 py-2 text-sm text-red-800">
              This reset link has expired or was already used. Ask the operator for a new one.
            </p>
          )}
        </div>
        <p className="mt-6 text-center text-sm text-stone-600">
          <Link href="/sign-in" className="font-medium text-indigo-700 hover:underline">
            Back to sign in
          </Link>
        </p>
      </div>
    </main>
  );
}
