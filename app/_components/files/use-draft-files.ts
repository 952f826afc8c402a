'use client';

import { useCallback, useEffect, useMemo, useRef, useState } from 'react';

import { api, ApiError } from '../api';
import type { FileView } from './file-view';
import { uploadFile } from './upload';

/** A file of the message being written: on its way up (with how far it got), or stored. */
export type DraftFile =
  { key: string; status: 'uploading'; name: string; size: number; loaded: number } | { key: string; status: 'ready'; file: FileView };

/** Why a file the person chose is not attached; it names the file, the rest of the draft stays. */
export interface FileProblem {
  key: string;
  message: string;
}

/** Said before anything is sent when the message is already full (the server checks it again). */
export function tooManyFilesMessage(name: string, max: number): string {
  return `${name} was not attached: a message can carry at most ${max} files. Remove one to attach another.`;
}

/** The server's refusal, said about the file (its messages usually name it already). */
export function refusalMessage(name: string, err: unknown): string {
  const message = err instanceof ApiError ? err.message : 'The upload failed. Try again.';
  return message.includes(name) ? message : `${name} was not attached: ${message}`;
}

let counter = 0;
const nextKey = () => `upload-${Date.now().toString(36)}-${(counter += 1)}`;

/**
 * The files of the draft: each starts uploading the moment it is chosen (a button, a drop, a
 * paste), so sending only waits for the ones still on their way. A refused file is taken off with
 * a problem naming it; the other files and the text are left as they were.
 */
export function useDraftFiles(maxFiles: number) {
  const [items, setItems] = useState<DraftFile[]>([]);
  const [problems, setProblems] = useState<FileProblem[]>([]);
  // The count right now, for a second drop before React has drawn the first.
  const current = useRef<DraftFile[]>([]);
  const aborts = useRef(new Map<string, () => void>());

  const update = useCallback((change: (list: DraftFile[]) => DraftFile[]) => {
    current.current = change(current.current);
    setItems(current.current);
  }, []);

  // Uploads still running when the composer goes away are dropped with it.
  useEffect(() => {
    const running = aborts.current;
    return () => running.forEach((abort) => abort());
  }, []);

  const add = useCallback(
    (files: File[]) => {
      if (files.length === 0) return;
      const room = Math.max(0, maxFiles - current.current.length);
      const refused = files.slice(room).map((f) => ({ key: nextKey(), message: tooManyFilesMessage(f.name, maxFiles) }));
      setProblems(refused);
      for (const file of files.slice(0, room)) {
        const key = nextKey();
        update((list) => [...list, { key, status: 'uploading', name: file.name, size: file.size, loaded: 0 }]);
        const upload = uploadFile(file, (loaded) =>
          update((list) => list.map((d) => (d.key === key && d.status === 'uploading' ? { ...d, loaded } : d))),
        );
        aborts.current.set(key, upload.abort);
        upload.done.then(
          // The same bytes twice are one stored file (the server dedupes by content): the second is dropped.
          (stored) =>
            update((list) =>
              list.some((d) => d.status === 'ready' && d.file.id === stored.id)
                ? list.filter((d) => d.key !== key)
                : list.map((d) => (d.key === key ? { key, status: 'ready', file: stored } : d)),
            ),
          (err) => {
            // Taken off by the person meanwhile: nothing to say.
            if (!current.current.some((d) => d.key === key)) return;
            update((list) => list.filter((d) => d.key !== key));
            setProblems((p) => [...p, { key, message: refusalMessage(file.name, err) }]);
          },
        );
        void upload.done.finally(() => aborts.current.delete(key)).catch(() => {});
      }
    },
    [maxFiles, update],
  );

  const remove = useCallback(
    (key: string) => {
      const removed = current.current.find((d) => d.key === key);
      update((list) => list.filter((d) => d.key !== key));
      aborts.current.get(key)?.();
      // A stored draft file nobody sends is deleted, so it stops counting against the person's
      // storage. The server keeps one a sent message refers to (409): nothing to do then.
      if (removed?.status === 'ready') void api(`/api/files/${encodeURIComponent(removed.file.id)}`, { method: 'DELETE' }).catch(() => {});
    },
    [update],
  );

  /** The stored files of a draft read back after a reload. */
  const restore = useCallback(
    (files: FileView[]) => update(() => files.slice(0, maxFiles).map((file) => ({ key: `stored-${file.id}`, status: 'ready', file }))),
    [maxFiles, update],
  );

  const clear = useCallback(() => {
    update(() => []);
    setProblems([]);
  }, [update]);

  const dismiss = useCallback((key: string) => setProblems((p) => p.filter((x) => x.key !== key)), []);

  // The same array until a file changes: the composer saves the draft when it does.
  const ready = useMemo(() => items.flatMap((d) => (d.status === 'ready' ? [d.file] : [])), [items]);
  return { items, ready, uploading: items.some((d) => d.status === 'uploading'), problems, add, remove, restore, clear, dismiss };
}
