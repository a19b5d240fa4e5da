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

/** snarkVM's Merkle depths are at most 64. */
export const MAX_MERKLE_DEPTH = 64;

/**
 * The width (leaves padded to a power of two) and its levels of a tree of `count` leaves at
 * `depth`; throws a RangeError when the depth is not an integer in [0, 64] or holds fewer leaves.
 * Both backends check with it (the same errors).
 */
export function merkleCheck(depth: number, count: number): { width: number; levels: number } {
  if (!Number.isInteger(depth) || depth < 0 || depth > MAX_MERKLE_DEPTH) throw new RangeError(`a Merkle tree's depth is an integer from 0 to ${MAX_MERKLE_DEPTH}, got ${depth}`);
  const width = count <= 1 ? 1 : 2 ** Math.ceil(Math.log2(count));
  const levels = Math.log2(width);
  if (levels > depth) throw new RangeError(`a Merkle tree of depth ${depth} holds at most ${2 ** depth} leaves, got ${count}`);
  return { width, levels };
}

export function merkleRoot(h: MerkleHashers, depth: number, leaves: readonly Uint8Array[]): bigint {
  const { width, levels } = merkleCheck(depth, leaves.length);
  const empty = hashChildren(h, 0n, 0n);
  let level: bigint[] = leaves.map((leaf) => h.leaf(new BitString().bool(false).bits(leaf).toArray()));
  while (level.length < width) level.push(empty);
  // Pairs of empty nodes recur at every level of a sparse tree: hash each level's once, and only
  // when the level has one (the padding is a suffix: once a level has no such pair, none above has).
  let emptyPair: bigint | null = empty;
  while (level.length > 1) {
    const next: bigint[] = [];
    let emptyParent: bigint | null = null;
    for (let i = 0; i < level.length; i += 2) {
      const l = level[i] as bigint;
      const r = level[i + 1] as bigint;
      if (l === emptyPair && r === emptyPair) next.push((emptyParent ??= hashChildren(h, emptyPair, emptyPair)));
      else next.push(hashChildren(h, l, r));
    }
    emptyPair = emptyParent;
    level = next;
  }
  let root = level[0] as bigint;
  for (let i = levels; i < depth; i++) root = hashChildren(h, root, empty);
  return root;
}
