import { Link2Off } from 'lucide-react';
import Link from 'next/link';

import { Logo } from '@/app/_components/shell/logo';
import { buttonClasses, EmptyState } from '@/app/_components/ui';

/** A shared link that shows nothing (unknown, revoked, expired, or asked too often): said plainly, with a way on. */
export function SharedUnavailable({ title, description }: { title: string; description: string }) {
  return (
    <div className="flex min-h-dvh flex-col bg-canvas">
      <header className="flex shrink-0 items-center border-b border-border px-4 pb-2 pt-[max(env(safe-area-inset-top),0.5rem)] md:px-6">
        <Link href="/" className="rounded-control px-1 py-1">
          <Logo />
        </Link>
      </header>
      <main className="flex flex-1 items-center justify-center py-16">
        <h1 className="sr-only">Shared conversation</h1>
        <EmptyState icon={Link2Off} title={title} description={description} headingLevel="h2">
          <div className="flex justify-center">
            <Link href="/" className={buttonClasses({ variant: 'secondary' })}>
              Go to Switchboard
            </Link>
          </div>
        </EmptyState>
      </main>
    </div>
  );
}
