import { redirect } from 'next/navigation';

import { AuthForm } from '@/app/_components/auth/auth-form';
import { safeNextPath } from '@/app/_components/auth/next-path';
import { passwordSignInEnabled, ssoProviders } from '@/lib/auth/providers';
import { getPageSession } from '@/lib/server/page-session';

export const dynamic = 'force-dynamic';

/** `?next=<path>`: where to go once signed in (a shared link for signed-in readers); anything but a path of ours is ignored. */
export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<{ error?: string; code?: string; next?: string | string[] }>;
}) {
  const { error, code, next: rawNext } = await searchParams;
  const next = safeNextPath(rawNext);
  if (await getPageSession()) redirect(next ?? '/');
  return (
    <AuthForm
      mode="sign-in"
      errorCode={error ? (code ?? (error === 'CredentialsSignin' ? 'credentials' : error)) : undefined}
      providers={ssoProviders()}
      password={passwordSignInEnabled()}
      next={next}
    />
  );
}
