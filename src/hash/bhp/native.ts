/**
 * BHP on the native addon (native/bhp.c through native/addon.c, in the same addon as the Poseidon8
 * kernel): 4×64-bit Montgomery arithmetic in C over the lookup tables that hasher.ts builds, handed
 * to the addon once per hasher and thread (canonical little-endian limbs; C checks every point is
 * on the curve and converts to Montgomery form). Bit-for-bit equal to the portable hasher.ts
 * (test/unit/hash/bhp/native.test.ts, also against snarkVM's WASM).
 *
 * A whole input (every round) is one call; a Merkle root is one call (leaves and nodes hashed in
 * batches that share one inversion per level). `createBhpNative()` throws if the addon was not
 * built, does not load, or was built without the BHP entry points; backend.ts then takes the
 * portable hasher.
 */
import { createRequire } from 'node:module';
import { writeLimbs64 } from '../native-constants.js';
import { nativeAddonPath } from '../poseidon8-native.js';
import { BHP1024, BHP512, type BhpParameters } from './hasher.js';
import { merkleCheck } from './merkle.js';
import { tablesOf } from './tables.js';

/** A table loaded into the addon (an N-API external). */
type NativeTable = object & { readonly __bhpTable: unique symbol };

interface BhpAddon {
  bhpLoad(points: BigUint64Array, domainBits: Uint8Array): NativeTable;
  bhpBits(table: NativeTable): number;
  bhpHashRound(table: NativeTable, bits: Uint8Array, out: Uint8Array): void;
  bhpHash(table: NativeTable, bits: Uint8Array, out: Uint8Array): void;
  bhpHashMany(table: NativeTable, bits: Uint8Array, layout: Uint32Array, out: Uint8Array): void;
  bhpMerkleRoot(leafTable: NativeTable, nodeTable: NativeTable, depth: number, bits: Uint8Array, layout: Uint32Array, out: Uint8Array): void;
}

const ENTRY_POINTS = ['bhpLoad', 'bhpBits', 'bhpHashRound', 'bhpHash', 'bhpHashMany', 'bhpMerkleRoot'] as const;

export interface BhpNative {
  /** The hash of a whole input bit string (as hasher.ts bhpHashBits). */
  hash(params: BhpParameters, bits: Uint8Array): bigint;
  /** One round on its whole preimage (as hasher.ts bhpRoundX). */
  hashRound(params: BhpParameters, preimage: Uint8Array): bigint;
  /** hash of each input, one call into the addon (one shared inversion). */
  hashMany(params: BhpParameters, list: readonly Uint8Array[]): bigint[];
  /** snarkVM's BHP Merkle root (as merkle.ts merkleRoot with BHP1024 leaves and BHP512 nodes). */
  merkleRoot(depth: number, leaves: readonly Uint8Array[]): bigint;
}

/** 32 little-endian bytes at `at` → the integer. */
function readLe32(b: Uint8Array, at = 0): bigint {
  const v = new DataView(b.buffer, b.byteOffset + at, 32);
  return v.getBigUint64(0, true) | (v.getBigUint64(8, true) << 64n) | (v.getBigUint64(16, true) << 128n) | (v.getBigUint64(24, true) << 192n);
}

/** The inputs one after the other, with the (offset, length) layout the addon reads. */
function concat(list: readonly Uint8Array[]): { bits: Uint8Array; layout: Uint32Array } {
  let total = 0;
  for (const b of list) total += b.length;
  const bits = new Uint8Array(total);
  const layout = new Uint32Array(2 * list.length);
  let at = 0;
  list.forEach((b, i) => {
    bits.set(b, at);
    layout[2 * i] = at;
    layout[2 * i + 1] = b.length;
    at += b.length;
  });
  return { bits, layout };
}

export function createBhpNative(addonPath: string = nativeAddonPath()): BhpNative {
  const addon = createRequire(import.meta.url)(addonPath) as Partial<BhpAddon>;
  const missing = ENTRY_POINTS.filter((name) => typeof addon[name] !== 'function');
  if (missing.length > 0) throw new Error(`the native addon has no BHP entry points (${missing.join(', ')}; built before native/bhp.c? run npm run build:native)`);
  const a = addon as BhpAddon;
  const loaded = new Map<BhpParameters, NativeTable>();
  const tableOf = (p: BhpParameters): NativeTable => {
    let t = loaded.get(p);
    if (t === undefined) {
      const tables = tablesOf(p);
      const words = new BigUint64Array(12 * tables.lookup.length);
      tables.lookup.forEach((pt, i) => {
        writeLimbs64(words, 12 * i, pt.x);
        writeLimbs64(words, 12 * i + 4, pt.y);
        writeLimbs64(words, 12 * i + 8, pt.t2d);
      });
      t = a.bhpLoad(words, tables.domainBits);
      if (a.bhpBits(t) !== tables.hasherBits) throw new Error(`native BHP table of ${p.name}: ${a.bhpBits(t)} bits, expected ${tables.hasherBits}`);
      loaded.set(p, t);
    }
    return t;
  };
  const out = new Uint8Array(32);
  return {
    hash(params, bits) {
      a.bhpHash(tableOf(params), bits, out);
      return readLe32(out);
    },
    hashRound(params, preimage) {
      a.bhpHashRound(tableOf(params), preimage, out);
      return readLe32(out);
    },
    hashMany(params, list) {
      const { bits, layout } = concat(list);
      const outs = new Uint8Array(32 * list.length);
      a.bhpHashMany(tableOf(params), bits, layout, outs);
      return list.map((_, i) => readLe32(outs, 32 * i));
    },
    merkleRoot(depth, leaves) {
      merkleCheck(depth, leaves.length);
      const { bits, layout } = concat(leaves);
      a.bhpMerkleRoot(tableOf(BHP1024), tableOf(BHP512), depth, bits, layout, out);
      return readLe32(out);
    },
  };
}
