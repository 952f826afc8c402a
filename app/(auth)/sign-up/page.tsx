import { redirect } from 'next/navigation';

import { AuthForm } from '@/app/_components/auth/auth-form';
import { safeNextPath } from '@/app/_components/auth/next-path';
import { oauthProviders } from '@/lib/auth/config';
import { getPageSession } from '@/lib/server/page-session';

export const dynamic = 'force-dynamic';

/** `?next=` is passed along from the sign-in page, so a new account lands where sign-in would have. */
export default async function SignUpPage({ searchParams }: { searchParams: Promise<{ next?: string | string[] }> }) {
  const next = safeNextPath((await searchParams).next);
  if (await getPageSession()) redirect(next ?? '/');
  return <AuthForm mode="sign-up" providers={oauthProviders()} next={next} />;
}
