import type { Db } from '@/db/connection';
import { deleteBlobs, getBlob, putBlob } from '@/db/queries/files';

/**
 * Where the bytes of uploaded files live, by key (`<user id>/<sha256>`: one person's same bytes
 * are stored once). Everything else — the file rows, who may read what, what the model gets —
 * goes through this interface only, so an object store can replace the Postgres table without
 * touching the upload, the serving or the engine. `put` of a key already stored keeps what is
 * there (the key names the content).
 */
export interface FileStorage {
  put(key: string, bytes: Uint8Array): Promise<void>;
  get(key: string): Promise<Uint8Array | null>;
  delete(keys: readonly string[]): Promise<void>;
}

/** The bytes in Postgres (`file_blobs`, bytea): works the same on PGlite and Postgres. */
export function postgresFileStorage(db: Db): FileStorage {
  return {
    put: (key, bytes) => putBlob(db, key, bytes),
    get: (key) => getBlob(db, key),
    delete: (keys) => deleteBlobs(db, keys),
  };
}

/** The store a deployment uses. Only Postgres today; an object store would be chosen here. */
export function fileStorageFor(db: Db): FileStorage {
  return postgresFileStorage(db);
}

export function storageKey(userId: string, sha256: string): string {
  return `${userId}/${sha256}`;
}
