'use client';

import type { ToolCallView } from '../types';

/*
 * News of the calls asked by interactive views, from the page's event stream to the view cards.
 * A view's call is shown on its view's card, not where the model asked for something, so the
 * conversation's state does not hold it: the page passes each event about one on to the cards, and
 * a card with calls waiting for a decision asks the page to follow the conversation's events (the
 * server keeps that stream open while such calls have not ended), so a decision taken in another
 * tab, and how the call ended, show here without a reload.
 */

type Listener = (call: ToolCallView) => void;
const listeners = new Set<Listener>();
let follower: (() => void) | null = null;

/** The page: an event told of a view's call (asked, decided, ended), here or in another tab. */
export function tellViewCall(call: ToolCallView): void {
  for (const listener of listeners) listener(call);
}

/** A view's card: hears of the calls views asked for; returns the function that stops listening. */
export function listenToViewCalls(listener: Listener): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** The page: how to follow the conversation's events when a card needs them (null when it goes). */
export function setViewCallFollower(follow: (() => void) | null): void {
  follower = follow;
}

/** A card with calls waiting for the person: the page follows the conversation until they end. */
export function followViewCalls(): void {
  follower?.();
}
