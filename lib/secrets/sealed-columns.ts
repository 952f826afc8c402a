import type { SealedColumn } from './rotate';

/**
 * Every column that holds SecretBox-sealed values: `npm run rotate-secrets` re-seals them all.
 * A new sealed column must be listed here.
 */
export const SEALED_COLUMNS: SealedColumn[] = [];
