/**
 * LRU cache of successfully validated certificate chains. The key is SHA-256 over the policy, the
 * pinned root fingerprint and every DER in order, so a hit means the exact same bytes were already
 * parsed and had every signature verified. Each entry keeps the parsed certificates and the
 * intersection of their validity windows: a warm verification only checks that window.
 *
 * The CA part of a chain (everything above the leaf) is cached too: Nitro documents carry a fresh
 * leaf each time under the same CA bundle, so a new document only costs parsing its leaf and one
 * signature verification; every non-cryptographic check still runs on the whole chain.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Certificate } from './certificate.js';
import { parseCertificate } from './certificate.js';
import { parseChainDer, verifyChain, type ChainPolicy } from './chain.js';

interface Entry {
  readonly certs: readonly Certificate[];
  readonly notBefore: number;
  readonly notAfter: number;
}

export interface ChainCacheOptions {
  /** Maximum number of cached chains (default 1024); as many CA chains again. */
  readonly max?: number;
}

export class ChainCache {
  private readonly chains: LRUCache<string, Entry>;
  private readonly caChains: LRUCache<string, readonly Certificate[]>;
  /** Lookups answered from the cache (the validity window was still checked). */
  hits = 0;
  /** Lookups whose CA part was cached: only the leaf was parsed and its signature verified. */
  caHits = 0;
  /** Lookups that parsed and validated the whole chain. */
  misses = 0;

  constructor(opts: ChainCacheOptions = {}) {
    this.chains = new LRUCache<string, Entry>({ max: opts.max ?? 1024 });
    this.caChains = new LRUCache<string, readonly Certificate[]>({ max: opts.max ?? 1024 });
  }

  get size(): number {
    return this.chains.size;
  }

  clear(): void {
    this.chains.clear();
    this.caChains.clear();
  }

  /**
   * Validates `dersLeafFirst` (leaf, intermediates…, root) under `policy` at `policy.time` and
   * returns the parsed certificates. Throws exactly what verifyChain throws.
   */
  verify(dersLeafFirst: readonly Uint8Array[], policy: ChainPolicy): readonly Certificate[] {
    const key = cacheKey(dersLeafFirst, policy, 0);
    const hit = this.chains.get(key);
    if (hit) {
      this.hits++;
      if (policy.time >= hit.notBefore && policy.time <= hit.notAfter) return hit.certs;
      verifyChain(hit.certs, policy); // outside the window: throws the precise per-certificate error
      return hit.certs; // verifyChain found every certificate valid at this time after all
    }
    let certs: Certificate[];
    const caKey = dersLeafFirst.length >= 2 ? cacheKey(dersLeafFirst, policy, 1) : undefined;
    const ca = caKey === undefined ? undefined : this.caChains.get(caKey);
    if (ca) {
      this.caHits++;
      certs = [parseCertificate(dersLeafFirst[0]!), ...ca];
      verifyChain(certs, policy, { signaturesVerifiedFrom: 1 });
    } else {
      this.misses++;
      certs = parseChainDer(dersLeafFirst, policy.root);
      verifyChain(certs, policy);
      if (caKey !== undefined) this.caChains.set(caKey, certs.slice(1));
    }
    let notBefore = -Infinity;
    let notAfter = Infinity;
    for (const c of certs) {
      notBefore = Math.max(notBefore, c.notBefore);
      notAfter = Math.min(notAfter, c.notAfter);
    }
    this.chains.set(key, { certs, notBefore, notAfter });
    return certs;
  }
}

function cacheKey(ders: readonly Uint8Array[], policy: ChainPolicy, from: number): string {
  const h = createHash('sha256');
  h.update(
    JSON.stringify([
      from,
      policy.root.fingerprint256,
      policy.leafKeyCurve ?? null,
      policy.leafSignatureAlgorithms ?? null,
      policy.knownCriticalExtensions ?? null,
    ]),
  );
  const len = Buffer.alloc(4);
  for (let i = from; i < ders.length; i++) {
    const d = ders[i]!;
    len.writeUInt32BE(d.length);
    h.update(len);
    h.update(d);
  }
  return h.digest('base64');
}
