/**
 * The root of snarkVM's BHP Merkle tree (`console/collections/src/merkle_tree`, the network's
 * `merkle_tree_bhp`): leaves hashed with BHP1024 over [0 ‖ leaf], nodes with BHP512 over
 * [1 ‖ left ‖ right]. The leaves are padded to a power of two with the empty hash
 * (BHP512 of [1 ‖ 0 ‖ 0]); above that width the root climbs to DEPTH as hash(root, empty).
 */
import { BitString } from './bitString.js';

export interface MerkleHashers {
  leaf(bits: Uint8Array): bigint;
  node(bits: Uint8Array): bigint;
}

function hashChildren(h: MerkleHashers, left: bigint, right: bigint): bigint {
  return h.node(new BitString().bool(true).field(left).field(right).toArray());
}

export function merkleRoot(h: MerkleHashers, depth: number, leaves: readonly Uint8Array[]): bigint {
  const width = leaves.length <= 1 ? 1 : 2 ** Math.ceil(Math.log2(leaves.length));
  const levels = Math.log2(width);
  if (levels > depth) throw new RangeError(`a Merkle tree of depth ${depth} holds at most ${2 ** depth} leaves, got ${leaves.length}`);
  const empty = hashChildren(h, 0n, 0n);
  let level: bigint[] = leaves.map((leaf) => h.leaf(new BitString().bool(false).bits(leaf).toArray()));
  while (level.length < width) level.push(empty);
  // Pairs of empty nodes recur at every level of a sparse tree: hash each once.
  let emptyPair = empty;
  while (level.length > 1) {
    const next: bigint[] = [];
    const emptyParent = hashChildren(h, emptyPair, emptyPair);
    for (let i = 0; i < level.length; i += 2) {
      const l = level[i] as bigint;
      const r = level[i + 1] as bigint;
      next.push(l === emptyPair && r === emptyPair ? emptyParent : hashChildren(h, l, r));
    }
    emptyPair = emptyParent;
    level = next;
  }
  let root = level[0] as bigint;
  for (let i = levels; i < depth; i++) root = hashChildren(h, root, empty);
  return root;
}
