'use client';

import { useState } from 'react';

import { api, ApiError } from '@/app/_components/api';
import { ConfirmDialog, Notice } from '@/app/_components/ui';

/**
 * Asks before revoking a token row (a personal token or a connected client: both are tokens) and
 * revokes it; open while `token` is set. What failed is said in the dialog, which stays open.
 */
export function RevokeTokenDialog({
  token,
  onClose,
  onRevoked,
  description,
  confirmLabel,
  failure,
}: {
  token: { id: string; name: string } | null;
  onClose: () => void;
  /** After the revoke: read the list again. */
  onRevoked: () => Promise<void>;
  description: string;
  confirmLabel: string;
  /** Said when the request failed without an answer of the server's. */
  failure: string;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');

  async function revoke(t: { id: string }) {
    setBusy(true);
    setError('');
    try {
      await api(`/api/account/tokens/${t.id}`, { method: 'DELETE' });
      onClose();
      await onRevoked();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : failure);
    } finally {
      setBusy(false);
    }
  }

  return (
    <ConfirmDialog
      open={token !== null}
      onClose={() => {
        setError('');
        onClose();
      }}
      title={`Revoke “${token?.name ?? ''}”?`}
      description={description}
      confirmLabel={confirmLabel}
      tone="danger"
      busy={busy}
      onConfirm={() => token && void revoke(token)}
    >
      {error && <Notice tone="error">{error}</Notice>}
    </ConfirmDialog>
  );
}
