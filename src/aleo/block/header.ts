/**
 * A block header's commitments as snarkVM computes them (`ledger/block/src/header`): the metadata
 * hash (BHP1024 of its 696 bits), the header root (a depth-3 BHP Merkle tree of 8 leaves
 * `index (u8) ‖ id`), and the block hash BHP1024(previous hash ‖ header root).
 */
import { BitString, bhp1024, bhpMerkleRoot } from '../../hash/bhp/index.js';

export const HEADER_DEPTH = 3;

export interface Metadata {
  network: bigint;
  round: bigint;
  height: bigint;
  cumulativeWeight: bigint;
  cumulativeProofTarget: bigint;
  coinbaseTarget: bigint;
  proofTarget: bigint;
  lastCoinbaseTarget: bigint;
  lastCoinbaseTimestamp: bigint;
  timestamp: bigint;
}

export interface HeaderRoots {
  previousStateRoot: bigint;
  transactionsRoot: bigint;
  finalizeRoot: bigint;
  ratificationsRoot: bigint;
  solutionsRoot: bigint;
  subdagRoot: bigint;
  metadata: Metadata;
}

/** snarkVM `Metadata::to_bits_le` (696 bits). */
export function metadataBits(m: Metadata): Uint8Array {
  return new BitString()
    .int(0, 8)
    .int(m.network, 16)
    .int(m.round, 64)
    .int(m.height, 32)
    .int(m.cumulativeWeight, 128)
    .int(m.cumulativeProofTarget, 128)
    .int(m.coinbaseTarget, 64)
    .int(m.proofTarget, 64)
    .int(m.lastCoinbaseTarget, 64)
    .int(m.lastCoinbaseTimestamp, 64)
    .int(m.timestamp, 64)
    .toArray();
}

export function metadataHash(m: Metadata): bigint {
  return bhp1024(metadataBits(m));
}

export function headerRoot(h: HeaderRoots): bigint {
  const ids = [h.previousStateRoot, h.transactionsRoot, h.finalizeRoot, h.ratificationsRoot, h.solutionsRoot, h.subdagRoot, 0n, metadataHash(h.metadata)];
  return bhpMerkleRoot(HEADER_DEPTH, ids.map((id, index) => new BitString().int(index, 8).field(id).toArray()));
}

export function blockHash(previousHash: bigint, root: bigint): bigint {
  return bhp1024(new BitString().field(previousHash).field(root).toArray());
}
