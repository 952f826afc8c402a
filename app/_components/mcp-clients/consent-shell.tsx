import { LogoMark } from '../shell/logo';
import { Card } from '../ui';

/** The frame of the consent screen: the logo, a heading, one card. */
export function ConsentShell({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <main className="flex min-h-full flex-col items-center justify-center px-4 py-12">
      <div className="w-full max-w-lg">
        <div className="mb-6 flex flex-col items-center text-center">
          <LogoMark className="mb-4 size-11 shadow-card [border-radius:22%]" />
          <h1 className="text-2xl font-semibold tracking-tight break-words">{title}</h1>
        </div>
        <Card className="p-6 max-sm:px-5">{children}</Card>
      </div>
    </main>
  );
}
