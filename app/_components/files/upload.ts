'use client';

import { ApiError } from '../api';
import { fileViewSchema, type FileView } from './file-view';

export interface UploadHandle {
  done: Promise<FileView>;
  abort: () => void;
}

/**
 * `POST /api/files` with the file as the multipart field `file`. XMLHttpRequest rather than fetch:
 * only it reports upload progress. Refusals come back as ApiError with the server's message.
 */
export function uploadFile(file: File, onProgress: (loaded: number, total: number) => void): UploadHandle {
  const xhr = new XMLHttpRequest();
  const done = new Promise<FileView>((resolve, reject) => {
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded, e.total);
    };
    xhr.onerror = () => reject(new ApiError(0, 'network', 'Could not reach Switchboard. Check your connection and try again.'));
    xhr.onabort = () => reject(new ApiError(0, 'aborted', 'The upload was cancelled.'));
    xhr.onload = () => {
      const body = parse(xhr.responseText);
      if (xhr.status === 201) {
        const parsed = fileViewSchema.safeParse((body as { file?: unknown } | null)?.file);
        if (parsed.success) return resolve(parsed.data);
        return reject(new ApiError(xhr.status, 'bad_response', 'Switchboard answered the upload with something unexpected. Try again.'));
      }
      // The session ended: reloading lands on sign-in (as api() does).
      if (xhr.status === 401) window.location.reload();
      const error = (body as { error?: { code?: unknown; message?: unknown; field?: unknown } } | null)?.error;
      reject(
        new ApiError(
          xhr.status,
          typeof error?.code === 'string' ? error.code : 'unknown',
          typeof error?.message === 'string' ? error.message : `Switchboard refused the upload (HTTP ${xhr.status}).`,
          typeof error?.field === 'string' ? error.field : undefined,
        ),
      );
    };
  });
  const form = new FormData();
  form.append('file', file, file.name);
  xhr.open('POST', '/api/files');
  xhr.send(form);
  return { done, abort: () => xhr.abort() };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
