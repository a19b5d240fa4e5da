/**
 * The turns of bench/http-load.ts and bench/http-ab.ts compare peers only if no peer is favoured by
 * its place: each peer takes every place in the rounds equally often and waits as long between its
 * turns (bench/pacedLoad.ts turnOrder and turnRounds).
 */
import { describe, expect, it } from 'vitest';
import { turnOrder, turnRounds, turns } from '../../../bench/pacedLoad.js';

/** The turns of `peers` peers over `rounds` rounds, as one sequence of peer indexes. */
const schedule = (peers: number, rounds: number) => [...turns([...Array(peers).keys()], rounds)];

/** Each peer's waits (other peers' turns) between its consecutive turns, the schedule repeated (sorted). */
function waits(seq: number[], peer: number): number[] {
  const at = seq.flatMap((p, i) => (p === peer ? [i] : []));
  return at.map((i, k) => (k + 1 < at.length ? at[k + 1]! : at[0]! + seq.length) - i - 1).sort((x, y) => x - y);
}

describe('bench turns', () => {
  it.each([
    [10, 2, 1, 5],
    [10, 2, 2, 6],
    [10, 2, 3, 6],
    [10, 2, 4, 8],
    [12, 2, 3, 6],
    [1, 2, 3, 3],
  ])('%s s in turns of %s s for %s peer(s): %s rounds, whole cycles, at least the seconds asked', (seconds, slice, peers, rounds) => {
    expect(turnRounds(seconds, slice, peers)).toBe(rounds);
    expect(rounds % peers).toBe(0);
    expect(rounds * slice).toBeGreaterThanOrEqual(seconds);
  });

  it.each([2, 3, 4])('%s peers: every place equally often, and the same waits between turns', (peers) => {
    const rounds = turnRounds(10, 2, peers);
    const seq = schedule(peers, rounds);
    for (let p = 0; p < peers; p++) {
      const places = Array.from({ length: rounds }, (_, r) => turnOrder([...Array(peers).keys()], r).indexOf(p));
      for (let place = 0; place < peers; place++) expect(places.filter((x) => x === place)).toHaveLength(rounds / peers);
      expect(waits(seq, p)).toEqual(waits(seq, 0));
    }
  });

  it('five rounds of three peers (the old schedule) gave the peers different waits', () => {
    const seq = schedule(3, 5);
    expect(waits(seq, 0)).not.toEqual(waits(seq, 1));
  });
});
