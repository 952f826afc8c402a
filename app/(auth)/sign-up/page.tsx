import { redirect } from 'next/navigation';

import { AuthForm } from '@/app/_components/auth/auth-form';
import { safeNextPath, withNext } from '@/app/_components/auth/next-path';
import { passwordSignInEnabled, ssoProviders } from '@/lib/auth/providers';
import { getPageSession } from '@/lib/server/page-session';

export const dynamic = 'force-dynamic';

/** `?next=` is passed along from the sign-in page, so a new account lands where sign-in would have. */
export default async function SignUpPage({ searchParams }: { searchParams: Promise<{ next?: string | string[] }> }) {
  const next = safeNextPath((await searchParams).next);
  if (await getPageSession()) redirect(next ?? '/');
  // Without passwords an account is made at the first single sign-on: the sign-in page says so.
  if (!passwordSignInEnabled()) redirect(withNext('/sign-in', next));
  return <AuthForm mode="sign-up" providers={ssoProviders()} next={next} />;
}
