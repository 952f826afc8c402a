'use client';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The request field the error is about (`error.field`), to show it next to that field. */
    readonly field?: string,
  ) {
    super(message);
  }
}

/** JSON calls to our own API; errors come back as ApiError with the server's message. */
export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: init.method ?? 'GET',
      headers: init.body !== undefined ? { 'Content-Type': 'application/json' } : undefined,
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'network', 'Could not reach Switchboard. Check your connection and try again.');
  }
  if (res.status === 204) return undefined as T;
  const body = await res.json().catch(() => null);
  if (!res.ok) {
    // The session ended (signed out elsewhere, expired): reloading lands on sign-in.
    if (res.status === 401) window.location.reload();
    throw new ApiError(
      res.status,
      body?.error?.code ?? 'unknown',
      body?.error?.message ?? withoutExplanation(res.status),
      typeof body?.error?.field === 'string' ? body.error.field : undefined,
    );
  }
  return body as T;
}

/** An error answer with no message of ours (a proxy in between, a crash): say what to do anyway. */
function withoutExplanation(status: number): string {
  if (status >= 500)
    return `Switchboard ran into a problem (HTTP ${status}). Try again in a moment; if it keeps happening, reload the page.`;
  return `Switchboard refused the request (HTTP ${status}). Reload the page and try again.`;
}
