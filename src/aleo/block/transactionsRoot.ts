/**
 * A block's transactions root (snarkVM `ledger/block/src/transactions/merkle.rs`): the depth-20 BHP
 * Merkle tree whose leaves are the confirmed transactions' ids, in block order.
 */
import { BitString, bhpMerkleRoot } from '../../hash/bhp/index.js';

export const TRANSACTIONS_DEPTH = 20;

export function transactionsRoot(transactionIds: readonly bigint[]): bigint {
  return bhpMerkleRoot(TRANSACTIONS_DEPTH, transactionIds.map((id) => new BitString().field(id).toArray()));
}
