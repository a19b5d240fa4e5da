/**
 * Reading the body of a snarkOS `/blocks?start&end` answer: a JSON array of whole blocks, of which
 * the audit needs only each block's `header.metadata.height` and `.timestamp` and its
 * `transactions`. On mainnet ≈ 97 % of a block is its `authority` (BFT certificates and
 * signatures), so building it with `JSON.parse` costs most of a scan's CPU.
 *
 * Readers with the same answer for every body:
 * - `readBlocksStructural` walks the bytes once: it checks the JSON grammar of the whole body
 *   (brackets, commas, colons, strings and their escapes, numbers, literals) while building
 *   nothing, and `JSON.parse`s only the slices of each block's `header` and `transactions`
 *   members. Members come in any order; a duplicated member counts as its last occurrence, as
 *   with `JSON.parse`. One difference, by choice: inside the strings of members it skips, a raw
 *   control character (U+0000..U+001F, which JSON forbids there) is not looked for. Skipped values
 *   go through the WebAssembly fast path (./jsonSkip.ts) where it runs; `readBlocksStructuralJs`
 *   is the same walk without it.
 * - `BlocksArrival`, the one in use: the same walk while the body's bytes arrive, block by block.
 * - `readBlocksJson`, the reference: `JSON.parse` of the whole body (the differential tests' oracle
 *   and the benchmark's "today" row; chosen with the hidden env `VERIFIER_BLOCKS_READER=json`).
 *
 * Each fails LEDGER_NODE_MALFORMED_BLOCKS, naming the block (its index and the height expected
 * there) and the byte offset, for a body that is not the blocks shape: not JSON, truncated, a block
 * without an integer height and timestamp, `transactions` not an array. The heights themselves are
 * checked by the caller (src/ledger/node/blocks/fetchBlocks.ts).
 */
import { malformed, blockRecord, type BlockRecord, type BlocksReader } from './blockRecord.js';
import { Scanner } from './walkBlocksJson.js';
import { createJsonSkipper, type JsonSkipOptions } from './jsonSkip.js';

export { blockRecord, type BlockRecord, type BlocksReader };

/** The reference reader: JSON.parse of the whole body. */
export const readBlocksJson: BlocksReader = (body, start) => {
  let v: unknown;
  try {
    v = JSON.parse(body.toString('utf8'));
  } catch (e) {
    return malformed(`the blocks answer from height ${start} is not JSON (${(e as Error).message}; ${body.length} bytes)`);
  }
  if (!Array.isArray(v)) return malformed(`the blocks answer from height ${start} is not a JSON array`);
  return v.map((b, i) => blockRecord(b, i, start));
};

/** The structural reader with fast-path windows of its own size (tests cross windows with small ones). */
export const structuralReaderWith =
  (o: JsonSkipOptions): BlocksReader =>
  (body, start) =>
    new Scanner(body, start, createJsonSkipper(body, o)).blocks();

/**
 * The structural reader: the authority and every other member but header and transactions are
 * checked and skipped, not built; values are skipped by the WebAssembly fast path where it runs.
 */
export const readBlocksStructural: BlocksReader = structuralReaderWith({});

/** The structural reader in JavaScript alone (the differential tests' and the benchmark's row without the fast path). */
export const readBlocksStructuralJs: BlocksReader = (body, start) => new Scanner(body, start).blocks();

/**
 * A `/blocks` body read while it arrives: each `arrived` reads the whole blocks among the bytes
 * landed so far, while the processor's caches still hold them (read after the whole body, the
 * first of its ≈ 17 MB have long left them), and `read` the rest once the body is whole. The answer
 * and every error are `readBlocksStructural`'s on the whole body, wherever the arrival was cut: a
 * block counts once read whole, a failure among bytes not all there yet is left to `read`, which
 * reads on from the last whole block over the whole body. Each attempt at the body (a retry)
 * starts over.
 */
export class BlocksArrival {
  private state: Scanner | undefined;
  private attempt = -1;
  /** Bytes past the last whole block before trying again: about two blocks. */
  private need = 0;

  constructor(
    readonly start: number,
    private readonly o: { skip?: JsonSkipOptions; /** Fewest new bytes worth a try (default 64 KiB; tests try at every landing). */ minTry?: number } = {},
  ) {}

  /** The body's first `size` bytes are in `bytes` (where they stay until the body is read) in the `attempt`-th try at it. */
  arrived(bytes: Buffer, size: number, attempt: number): void {
    if (attempt !== this.attempt || (this.state && this.state.p > size)) {
      this.attempt = attempt;
      this.state = undefined;
      this.need = 0;
    }
    const from = this.state?.p ?? 0;
    if (size - from < this.need) return;
    const view = bytes.subarray(0, size);
    const s = new Scanner(view, this.start, createJsonSkipper(view, this.o.skip), true);
    if (this.state) s.resume(this.state);
    try {
      s.wholeBlocks();
    } catch {
      // Nothing a read while arriving throws is the answer: `read` reads the whole body from the start.
      this.state = undefined;
      this.need = Infinity;
      return;
    }
    this.state = s;
    // Try again once about two more blocks may be whole (before the first, twice the bytes tried).
    const least = this.o.minTry ?? 64 * 1024;
    this.need = s.index > 0 ? Math.max(2 * (s.p / s.index), least) : Math.max(2 * (size - from), least);
  }

  /** The whole body of the `attempt`-th try: its blocks, or the error that names what is wrong. */
  read(body: Buffer, attempt: number): BlockRecord[] {
    const s = new Scanner(body, this.start, createJsonSkipper(body, this.o.skip));
    if (this.state && attempt === this.attempt && this.state.p <= body.length) s.resume(this.state);
    return s.blocks();
  }
}

/** How one answer's body is read: while its bytes arrive (where the reader can) and once it is whole. */
export interface BlocksReading {
  arrived?(bytes: Buffer, size: number, attempt: number): void;
  read(body: Buffer, attempt: number): BlockRecord[];
}

/**
 * The reading in use for the answer of `start`: the structural reader while the bytes arrive
 * (`BlocksArrival`), or by the hidden `VERIFIER_BLOCKS_READER` (benchmark rows), once the body is
 * whole: `json` the reference, `js` the structural reader without its WebAssembly fast path,
 * `whole` the structural reader with it.
 */
export function blocksReading(env: NodeJS.ProcessEnv = process.env): (start: number) => BlocksReading {
  const v = env.VERIFIER_BLOCKS_READER;
  const whole = v === 'json' ? readBlocksJson : v === 'js' ? readBlocksStructuralJs : v === 'whole' ? readBlocksStructural : undefined;
  if (whole) return (start) => ({ read: (body) => whole(body, start) });
  return (start) => new BlocksArrival(start);
}
