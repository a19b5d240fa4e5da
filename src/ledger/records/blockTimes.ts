/**
 * Judging ledger updates at their own time (docs/history.md): each update item is stamped with
 * its block's timestamp (UpdateBase.blockTimestamp) and asked to be judged as it stood then
 * (UpdateItem.asOf, VerifyOptions.asOf). The `/blocks` route carries each block's timestamp; the
 * `/blocks/transactions` route and a lookup by transaction id do not, so the header of each block
 * holding an update is read (`timestampOf`, one request per such block: about one block in
 * 100–300 on mainnet).
 */
import type { LedgerItem } from './transitions.js';

/** Block timestamps (Unix seconds) by height, as far as the blocks read carry them. */
export type KnownTimes = ReadonlyMap<number, number>;

/**
 * Stamps every update item of `items` with its block's timestamp and the time to judge it at:
 * from `known`, else read with `timestampOf` (once per height). Items without a height (saved
 * transaction files) are left to be judged now.
 */
export async function judgeAtBlockTimes(items: readonly LedgerItem[], known: KnownTimes, timestampOf: (height: number) => Promise<number>): Promise<void> {
  const read = new Map<number, Promise<number>>();
  const timeOf = (h: number): Promise<number> => {
    const k = known.get(h);
    if (k !== undefined) return Promise.resolve(k);
    let p = read.get(h);
    if (!p) read.set(h, (p = timestampOf(h)));
    return p;
  };
  await Promise.all(
    items.map(async (it) => {
      if (it.type !== 'update' || it.base.blockHeight === undefined) return;
      const seconds = await timeOf(it.base.blockHeight);
      it.base.blockTimestamp = new Date(seconds * 1000).toISOString();
      it.asOf = seconds * 1000;
    }),
  );
}

/** The timestamps the scanned blocks carry (the `/blocks` route), by height. */
export function timesOfBlocks(blocks: readonly { height: number; timestamp?: number }[]): Map<number, number> {
  return new Map(blocks.flatMap((b) => (b.timestamp !== undefined ? [[b.height, b.timestamp] as const] : [])));
}
