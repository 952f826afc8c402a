import { customType, index, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';

import { FILE_KINDS } from '../vocabulary';
import { ownerRef } from './accounts';
import { createdAt } from './columns';

/** Uploaded files and their bytes. */

// Raw bytes. node-postgres answers a Buffer and PGlite a Uint8Array: both are Uint8Array.
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => 'bytea',
  toDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength)),
});

// A file the person uploaded (lib/files). A draft's file until a message refers to it (as a
// reference block in the message's content, resolved to bytes when a request is built); its
// kind, type and dimensions were read from its bytes. The bytes themselves are in the file store
// under `storage_key` — `<user id>/<sha256>`, so the same bytes uploaded twice by one person are
// stored once.
export const files = pgTable(
  'files',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: ownerRef(),
    name: text('name').notNull(),
    kind: text('kind', { enum: FILE_KINDS }).notNull(),
    mediaType: text('media_type').notNull(),
    size: integer('size').notNull(),
    sha256: text('sha256').notNull(),
    storageKey: text('storage_key').notNull(),
    width: integer('width'),
    height: integer('height'),
    pages: integer('pages'),
    createdAt: createdAt(),
  },
  (t) => [index('files_user_idx').on(t.userId, t.createdAt), index('files_storage_key_idx').on(t.storageKey)],
);

// The Postgres file store (lib/files/storage.ts): bytes by key. Another store (object storage)
// would replace this table, not the files rows.
export const fileBlobs = pgTable('file_blobs', {
  key: text('key').primaryKey(),
  bytes: bytea('bytes').notNull(),
  createdAt: createdAt(),
});
