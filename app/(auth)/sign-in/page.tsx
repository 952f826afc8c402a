import { redirect } from 'next/navigation';

import { AuthForm } from '@/app/_components/auth-form';
import { oauthProviders } from '@/lib/auth/config';
import { getPageSession } from '@/lib/server/page-session';

export const dynamic = 'force-dynamic';

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ error?: string; code?: string }> }) {
  if (await getPageSession()) redirect('/');
  const { error, code } = await searchParams;
  return (
    <AuthForm
      mode="sign-in"
      errorCode={error ? (error === 'CredentialsSignin' ? (code ?? 'credentials') : error) : undefined}
      providers={oauthProviders()}
    />
  );
}
