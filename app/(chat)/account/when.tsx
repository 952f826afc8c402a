'use client';

const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A date and time in the reader's own format; the server may render another zone, the browser's wins. */
export function When({ iso }: { iso: string | null }) {
  if (!iso) return <>—</>;
  return (
    <time dateTime={iso} suppressHydrationWarning>
      {DATE_TIME.format(new Date(iso))}
    </time>
  );
}
