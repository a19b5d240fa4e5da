/**
 * BHP hashes of mainnet (snarkVM `hash_bhp256/512/768/1024`) and its BHP Merkle tree. The lookup
 * tables are computed on first use of each hasher (≈ 50 ms each).
 */
import { BHP1024, BHP256, BHP512, BHP768, bhpHashBits, buildTables, type BhpParameters, type BhpTables } from './hasher.js';
import { merkleRoot, type MerkleHashers } from './merkle.js';

export { BitString } from './bitString.js';

const tables = new Map<BhpParameters, BhpTables>();
function tablesOf(p: BhpParameters): BhpTables {
  let t = tables.get(p);
  if (t === undefined) {
    t = buildTables(p);
    tables.set(p, t);
  }
  return t;
}

export const bhp256 = (bits: Uint8Array): bigint => bhpHashBits(tablesOf(BHP256), bits);
export const bhp512 = (bits: Uint8Array): bigint => bhpHashBits(tablesOf(BHP512), bits);
export const bhp768 = (bits: Uint8Array): bigint => bhpHashBits(tablesOf(BHP768), bits);
export const bhp1024 = (bits: Uint8Array): bigint => bhpHashBits(tablesOf(BHP1024), bits);

const HASHERS: MerkleHashers = { leaf: bhp1024, node: bhp512 };

/** snarkVM `merkle_tree_bhp::<DEPTH>(leaves).root()`. */
export function bhpMerkleRoot(depth: number, leaves: readonly Uint8Array[]): bigint {
  return merkleRoot(HASHERS, depth, leaves);
}
