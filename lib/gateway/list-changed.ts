import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Server, ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';

import type { EventBus } from '@/lib/agent/bus';
import { errorSummary } from '@/lib/log-safe';

/**
 * `notifications/tools/list_changed` (and prompts, resources) to a client whose profile the person
 * changed, where the protocol revision has a channel for it:
 *
 * - **2026-07-28**: a client keeps a `subscriptions/listen` stream open (the SDK serves it, with
 *   its acknowledgement, filter and subscription id). The handler's change bus is this one,
 *   scoped per client: a stream belongs to the client whose request opened it (the request runs
 *   `within` that client's id), and a change reaches only that client's streams — never another
 *   person's, nor another client of the same person.
 * - **2025-11-25**: served statelessly (one server per request, GET answers 405), so there is no
 *   stream to send on and the capability says `listChanged: false`; such a client sees the change
 *   at its next `tools/list`, which is read again on every request.
 *
 * A change can be made on any instance while the stream is held by another: `profileChanged`
 * delivers to this instance's streams at once and announces it on the app's event bus (topic per
 * client), which every other instance holding a stream of that client listens to while it does.
 * A revocation travels the same way (`clientRevoked`), so the streams it ends are closed wherever
 * they are held (./listen-streams.ts).
 */

const KINDS: ServerEvent['kind'][] = ['tools_list_changed', 'prompts_list_changed', 'resources_list_changed'];
const PROFILE_CHANGED = 'mcp_client.profile_changed';
/** The client may have been revoked: the instances holding its streams check them (./listen-streams.ts). */
const CLIENT_REVOKED = 'mcp_client.revoked';
const clientTopic = (clientId: string) => `mcp-client:${clientId}`;

export interface ClientListenBus extends ServerEventBus {
  /** Serves a request as this client's: a listen stream it opens is this client's. */
  within<T>(clientId: string, serve: () => Promise<T>): Promise<T>;
  /** The person changed this client's profile (any instance may hold its streams). */
  profileChanged(clientId: string): void;
  /** The person revoked this client (or one of its tokens): `onRevoked` on this instance at once, and on the others holding its streams. */
  clientRevoked(clientId: string): void;
}

export function createClientListenBus(appBus: EventBus, opts: { onRevoked?: (clientId: string) => void } = {}): ClientListenBus {
  const current = new AsyncLocalStorage<string>();
  const instance = randomUUID();
  const listeners = new Map<string, Set<(event: ServerEvent) => void>>();
  const heard = new Map<string, Promise<() => void>>();

  function deliver(clientId: string): void {
    for (const listener of [...(listeners.get(clientId) ?? [])]) {
      for (const kind of KINDS) {
        try {
          listener({ kind } as ServerEvent);
        } catch (err) {
          console.error('[mcp] list_changed not delivered:', errorSummary(err));
        }
      }
    }
  }

  function listenFor(clientId: string): void {
    const unsubscribe = appBus.subscribe(clientTopic(clientId), (event) => {
      if (event.data.from === instance) return;
      if (event.type === CLIENT_REVOKED) opts.onRevoked?.(clientId);
      else deliver(clientId);
    });
    unsubscribe.catch((err: unknown) => console.error('[mcp] cannot hear profile changes:', errorSummary(err)));
    heard.set(clientId, unsubscribe);
  }

  return {
    within: (clientId, serve) => current.run(clientId, serve),
    profileChanged(clientId) {
      deliver(clientId);
      appBus.announce(clientTopic(clientId), PROFILE_CHANGED, { from: instance });
    },
    clientRevoked(clientId) {
      opts.onRevoked?.(clientId);
      appBus.announce(clientTopic(clientId), CLIENT_REVOKED, { from: instance });
    },
    // What the SDK publishes itself (its `notify` sugar) goes to the streams of the client being served only.
    publish(event) {
      const clientId = current.getStore();
      for (const listener of clientId ? [...(listeners.get(clientId) ?? [])] : []) listener(event);
    },
    subscribe(listener) {
      const clientId = current.getStore();
      if (!clientId) return () => {}; // not opened by a client's request: nothing is ever its to hear
      let set = listeners.get(clientId);
      if (!set) {
        set = new Set();
        listeners.set(clientId, set);
        listenFor(clientId);
      }
      set.add(listener);
      const mine = set;
      return () => {
        if (!mine.delete(listener) || mine.size > 0) return;
        listeners.delete(clientId);
        const unsubscribe = heard.get(clientId);
        heard.delete(clientId);
        void unsubscribe?.then((stop) => stop()).catch(() => {});
      };
    },
  };
}

/** A 2026-07-28 server says its lists change (the listen stream above carries it); a 2025 one has no channel for it. */
export function declareListChanged(server: Server, era: 'legacy' | 'modern'): void {
  if (era !== 'modern') return;
  const has = server.getCapabilities();
  server.registerCapabilities({
    ...(has.tools && { tools: { ...has.tools, listChanged: true } }),
    ...(has.prompts && { prompts: { ...has.prompts, listChanged: true } }),
    ...(has.resources && { resources: { ...has.resources, listChanged: true } }),
  });
}
