/**
 * `block check`: recompute what a block's JSON commits to and compare it with what it states.
 *   transactions root  from the confirmed transaction ids   (a whole block only)
 *   header root        from the header's roots and metadata
 *   block hash         BHP1024(previous_hash ‖ header root)
 * A header alone (with `block_hash` and `previous_hash` beside it) checks the last two.
 */
import { encodeBech32m, bigIntToLeBytes } from '../bech32m.js';
import { bech32Id, BlockJsonError, jsonObject, readHeader, readTransactionIds } from './blockJson.js';
import { blockHash, headerRoot } from './header.js';
import { transactionsRoot } from './transactionsRoot.js';

export interface BlockCheckLine {
  readonly name: 'transactions root' | 'header root' | 'block hash';
  readonly stated: string;
  readonly computed: string;
  readonly matches: boolean;
}

export interface BlockCheck {
  readonly height: string;
  readonly lines: readonly BlockCheckLine[];
  readonly allMatch: boolean;
  /** The block hash recomputed from the header and previous hash. */
  readonly computedHash: bigint;
}

const fieldText = (x: bigint) => `${x}field`;
const blockHashText = (x: bigint) => encodeBech32m('ab', bigIntToLeBytes(x, 32));

/** Throws BlockJsonError when the JSON is not a block or header of snarkOS's shape. */
export function checkBlock(json: unknown): BlockCheck {
  const block = jsonObject(json, 'block');
  if (block.block_hash === undefined || block.previous_hash === undefined) {
    throw new BlockJsonError('block: needs "block_hash" and "previous_hash" beside its "header" (a whole block, or a header with both)');
  }
  const stated = bech32Id(block.block_hash, 'ab', 'block.block_hash');
  const previous = bech32Id(block.previous_hash, 'ab', 'block.previous_hash');
  const header = readHeader(block.header, 'block.header');
  const lines: BlockCheckLine[] = [];
  if (block.transactions !== undefined) {
    const root = transactionsRoot(readTransactionIds(block.transactions, 'block.transactions'));
    lines.push({ name: 'transactions root', stated: fieldText(header.transactionsRoot), computed: fieldText(root), matches: root === header.transactionsRoot });
  }
  const root = headerRoot(header);
  const hash = blockHash(previous, root);
  lines.push({ name: 'header root', stated: '(not stated in the JSON)', computed: fieldText(root), matches: hash === stated });
  lines.push({ name: 'block hash', stated: blockHashText(stated), computed: blockHashText(hash), matches: hash === stated });
  return { height: String(header.metadata.height), lines, allMatch: lines.every((l) => l.matches), computedHash: hash };
}
