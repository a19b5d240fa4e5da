/**
 * Collateral (of a kind with a collateral port) handed to the workers once per version: the main thread serialises each
 * collateral version once into a SharedArrayBuffer, and every task carries only a reference to
 * it (a SharedArrayBuffer crosses postMessage without a copy). A worker deserialises a version
 * the first time it sees it and then keeps its verified form, so the per-task cost no longer
 * grows with the size of the TCB info, CRLs and issuer chains.
 */
import { deserialize, serialize } from 'node:v8';
import { LRUCache } from 'lru-cache';

export interface PackedCollateral {
  version: string;
  packed: SharedArrayBuffer;
}

/** Main thread: one SharedArrayBuffer per collateral version (a few versions live at a time). */
export class CollateralPacker {
  private readonly packs = new LRUCache<string, PackedCollateral>({ max: 32 });

  /** Whether `version` is packed already (a version not packed before is a refresh, or the first). */
  has(version: string): boolean {
    return this.packs.has(version);
  }

  pack(version: string, collateral: unknown): PackedCollateral {
    const hit = this.packs.get(version);
    if (hit) return hit;
    const bytes = serialize(collateral);
    const packed = new SharedArrayBuffer(bytes.length);
    new Uint8Array(packed).set(bytes);
    const p = { version, packed };
    this.packs.set(version, p);
    return p;
  }
}

/** Worker: the collateral of a pack (the buffer is only read). */
export function unpackCollateral(p: PackedCollateral): unknown {
  return deserialize(Buffer.from(p.packed)) as unknown;
}
