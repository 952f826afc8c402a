import type { Metadata } from 'next';

import { SharedUnavailable } from '@/app/_components/share/shared-unavailable';

export const metadata: Metadata = { title: 'Link not found · Switchboard', robots: { index: false, follow: false } };

/** Unknown, revoked and expired links look the same: nothing says which, or that a conversation was ever there. */
export default function SharedLinkNotFound() {
  return (
    <SharedUnavailable
      title="This link does not open anything"
      description="The link is wrong, its owner revoked it, or it has expired. Ask whoever sent it for a new one."
    />
  );
}
