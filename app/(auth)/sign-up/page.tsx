import { redirect } from 'next/navigation';

import { AuthForm } from '@/app/_components/auth-form';
import { oauthProviders } from '@/lib/auth/config';
import { getPageSession } from '@/lib/server/page-session';

export const dynamic = 'force-dynamic';

export default async function SignUpPage() {
  if (await getPageSession()) redirect('/');
  return <AuthForm mode="sign-up" providers={oauthProviders()} />;
}
