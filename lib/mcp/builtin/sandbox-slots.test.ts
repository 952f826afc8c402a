import { describe, expect, it } from 'vitest';

import { FairSlots, SandboxBusy, SlotCancelled, type SlotOwner } from './sandbox-slots';

/** Security review "Sandbox fairness": two workers and an unbounded queue let one person starve everyone. */

const person = (key: string, maxRunning = 2, maxWaiting = 4): SlotOwner => ({ key, maxRunning, maxWaiting });
const tick = () => new Promise((r) => setTimeout(r, 0));

describe('FairSlots', () => {
  it('gives a freed slot to the waiting person with the fewest runs going, not to the one with a burst', async () => {
    const slots = new FairSlots(2, 32);
    const order: string[] = [];
    const a = person('a');
    const held = [await slots.acquire(a), await slots.acquire(a)];
    // a's burst is already waiting when b arrives.
    const waits = [
      ...['a3', 'a4', 'a5'].map((name) => slots.acquire(a).then((free) => (order.push(name), free))),
      slots.acquire(person('b')).then((free) => (order.push('b1'), free)),
    ];
    await tick();
    expect(order).toEqual([]);
    held[0]!();
    await tick();
    expect(order).toEqual(['b1']);
    held[1]!();
    await tick();
    expect(order).toEqual(['b1', 'a3']);
    const [a3, , , b1] = waits;
    (await b1!)();
    (await a3!)();
    for (const free of await Promise.all(waits)) free();
    expect(order).toEqual(['b1', 'a3', 'a4', 'a5']);
  });

  it('caps each person’s runs at once even while slots are free', async () => {
    const slots = new FairSlots(4, 32);
    const a = person('a', 1);
    const first = await slots.acquire(a);
    let second = false;
    const waiting = slots.acquire(a).then((free) => ((second = true), free));
    await tick();
    expect(second).toBe(false);
    // Someone else still gets one of the free slots at once.
    (await slots.acquire(person('b', 1)))();
    first();
    (await waiting)();
    expect(second).toBe(true);
  });

  it('refuses at once past a person’s wait line, and past the overall one, saying why', async () => {
    const slots = new FairSlots(1, 2);
    const a = person('a', 1, 1);
    await slots.acquire(a);
    void slots.acquire(a).catch(() => {});
    const refused = await slots.acquire(a).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SandboxBusy);
    expect((refused as Error).message).toBe(
      "SandboxBusyError: the sandbox is busy with this user's other runs (1 running, 1 waiting; at most 1 at once and 1 waiting per " +
        'person). Run fewer at once: wait for those results, then run this again.',
    );
    void slots.acquire(person('b')).catch(() => {});
    expect(slots.waiting).toBe(2);
    const full = await slots.acquire(person('c')).catch((e: unknown) => e);
    expect((full as Error).message).toMatch(/^SandboxBusyError: the sandbox is busy with other people's runs \(2 waiting\)/);
    // A person allowed no runs at all is told at once rather than left waiting.
    await expect(slots.acquire(person('d', 0))).rejects.toBeInstanceOf(SandboxBusy);
  });

  it('lets a cancelled run leave the line, and turns everyone away on close', async () => {
    const slots = new FairSlots(1, 2);
    const free = await slots.acquire(person('a'));
    const ac = new AbortController();
    const left = slots.acquire(person('b'), ac.signal);
    const stays = slots.acquire(person('c'));
    ac.abort();
    await expect(left).rejects.toBeInstanceOf(SlotCancelled);
    expect(slots.waiting).toBe(1);
    slots.cancelAll();
    await expect(stays).rejects.toBeInstanceOf(SlotCancelled);
    free();
    expect(slots.waiting).toBe(0);
  });
});
