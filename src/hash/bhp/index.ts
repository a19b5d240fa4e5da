/**
 * BHP hashes of mainnet (snarkVM `hash_bhp256/512/768/1024`) and its BHP Merkle tree, on the
 * backend backend.ts selects at run time (`native`: native/bhp.c; `portable`: hasher.ts in
 * BigInt; VERIFIER_BHP_BACKEND forces one). The lookup tables are computed on first use of each
 * hasher (≈ 50 ms each, tables.ts).
 */
import { bhpBackend } from './backend.js';
import { BHP1024, BHP256, BHP512, BHP768 } from './hasher.js';

export { BitString } from './bitString.js';
export { BHP_BACKEND_ENV, bhpBackendName, bhpBackendReason, type BhpBackendName } from './backend.js';

export const bhp256 = (bits: Uint8Array): bigint => bhpBackend.hash(BHP256, bits);
export const bhp512 = (bits: Uint8Array): bigint => bhpBackend.hash(BHP512, bits);
export const bhp768 = (bits: Uint8Array): bigint => bhpBackend.hash(BHP768, bits);
export const bhp1024 = (bits: Uint8Array): bigint => bhpBackend.hash(BHP1024, bits);

/** snarkVM `merkle_tree_bhp::<DEPTH>(leaves).root()`. */
export function bhpMerkleRoot(depth: number, leaves: readonly Uint8Array[]): bigint {
  return bhpBackend.merkleRoot(depth, leaves);
}
