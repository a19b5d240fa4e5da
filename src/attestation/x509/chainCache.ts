/**
 * LRU cache of successfully validated certificate chains. The key is SHA-256 over the policy, the
 * pinned root fingerprint and every DER in order, so a hit means the exact same bytes were already
 * parsed and had every signature verified. Each entry keeps the parsed certificates and the
 * intersection of their validity windows: a warm verification only checks that window.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Certificate } from './certificate.js';
import { parseChainDer, verifyChain, type ChainPolicy } from './chain.js';

interface Entry {
  readonly certs: readonly Certificate[];
  readonly notBefore: number;
  readonly notAfter: number;
}

export interface ChainCacheOptions {
  /** Maximum number of cached chains (default 1024). */
  readonly max?: number;
}

export class ChainCache {
  private readonly lru: LRUCache<string, Entry>;
  /** Lookups answered from the cache (the window was still checked). */
  hits = 0;
  /** Lookups that parsed and validated the chain. */
  misses = 0;

  constructor(opts: ChainCacheOptions = {}) {
    this.lru = new LRUCache<string, Entry>({ max: opts.max ?? 1024 });
  }

  get size(): number {
    return this.lru.size;
  }

  clear(): void {
    this.lru.clear();
  }

  /**
   * Validates `dersLeafFirst` (leaf, intermediates…, root) under `policy` at `policy.time` and
   * returns the parsed certificates. Throws exactly what verifyChain throws.
   */
  verify(dersLeafFirst: readonly Uint8Array[], policy: ChainPolicy): readonly Certificate[] {
    const key = cacheKey(dersLeafFirst, policy);
    const hit = this.lru.get(key);
    if (hit) {
      this.hits++;
      if (policy.time >= hit.notBefore && policy.time <= hit.notAfter) return hit.certs;
      verifyChain(hit.certs, policy); // outside the window: throws the precise per-certificate error
      return hit.certs; // verifyChain found every certificate valid at this time after all
    }
    this.misses++;
    const certs = parseChainDer(dersLeafFirst, policy.root);
    verifyChain(certs, policy);
    let notBefore = -Infinity;
    let notAfter = Infinity;
    for (const c of certs) {
      notBefore = Math.max(notBefore, c.notBefore);
      notAfter = Math.min(notAfter, c.notAfter);
    }
    this.lru.set(key, { certs, notBefore, notAfter });
    return certs;
  }
}

function cacheKey(ders: readonly Uint8Array[], policy: ChainPolicy): string {
  const h = createHash('sha256');
  h.update(
    JSON.stringify([
      policy.root.fingerprint256,
      policy.leafKeyCurve ?? null,
      policy.leafSignatureAlgorithms ?? null,
      policy.knownCriticalExtensions ?? null,
    ]),
  );
  const len = Buffer.alloc(4);
  for (const d of ders) {
    len.writeUInt32BE(d.length);
    h.update(len);
    h.update(d);
  }
  return h.digest('base64');
}
