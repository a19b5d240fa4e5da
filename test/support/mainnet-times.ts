/**
 * The block times of the mainnet-shaped stand-in (test/support/mainnet-node.ts): a block every
 * 2.9 s, except that a block holding an update's first placement is not earlier than the update's
 * attestation time (the chain then goes on from there). Real-era updates attest times from 2024 to
 * 2026; the stand-in places its updates in the order of their attestation times, so each such block
 * holds its update's attestation time (exactly, or a few 290 s steps later when several attest
 * within 290 s of each other), which is what the completeness check's windows need
 * (docs/completeness.md: from 300 s before an attestation to an hour after it).
 *
 * Times never decrease: t(h) = offset(h) + ⌊2.9 h⌋, offset(h) the greatest of the genesis offset
 * and (attestation − ⌊2.9 h_p⌋) of every placement p at or below h. Without a genesis time given,
 * the chain starts early enough that no placement's block is later than its attestation time
 * (at the latest 1725000000, as on mainnet).
 */

/** Seconds from block 0 to block h at 2.9 s a block (the stand-in's spacing since before anchors). */
export const spacing = (h: number): number => Math.floor(h * 2.9);

export const MAINNET_GENESIS_TIME = 1725000000;

export class BlockTimes {
  /** Placement heights (ascending) and the offset in force from each. */
  private readonly heights: number[] = [];
  private readonly offsets: number[] = [];
  readonly genesis: number;

  /** `anchors`: the height and attestation time (seconds) of each first placement, ascending by height. */
  constructor(anchors: readonly { height: number; time: number }[], genesisTime?: number) {
    this.genesis = genesisTime ?? Math.min(MAINNET_GENESIS_TIME, ...anchors.map((a) => a.time - spacing(a.height)));
    let offset = this.genesis;
    for (const a of anchors) {
      offset = Math.max(offset, a.time - spacing(a.height));
      this.heights.push(a.height);
      this.offsets.push(offset);
    }
  }

  /** The timestamp (Unix seconds) of block `h`. */
  at(h: number): number {
    // The last anchor at or below h (binary search: there are few).
    let lo = 0;
    let hi = this.heights.length;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if (this.heights[m]! <= h) lo = m + 1;
      else hi = m;
    }
    return (lo === 0 ? this.genesis : this.offsets[lo - 1]!) + spacing(h);
  }
}
