/**
 * typeA collateral from a PCCS (or Intel PCS): fetches the four pieces a quote needs (TCB info by
 * FMSPC, QE identity, the PCK CRL of the quote's CA, the root CA CRL), caches each until its own
 * nextUpdate, and caches the verified combination so that a warm verification does no signature
 * work on collateral. Verification of the combination happens at the requested verification
 * time; cached combinations are re-checked against each verification time by verifyQuote.
 */
import { LRUCache } from 'lru-cache';
import { parseCrl } from '../attestation/x509/crl.js';
import type { Certificate } from '../attestation/x509/certificate.js';
import { splitSignedBody, type Collateral } from '../attestation/typeA/collateral.js';
import { parseTcbInfo } from '../attestation/typeA/tcbInfo.js';
import { parseQeIdentity } from '../attestation/typeA/qeIdentity.js';
import { verifyCollateral, type VerifiedCollateral } from '../attestation/typeA/verify.js';
import type { Quote } from '../attestation/typeA/quote.js';
import type { TypeACollateralSource } from '../verify/typeA.js';
import type { PccsClient, SignedJson } from './pccsClient.js';
import { RefreshingCache, type CacheEvents, type Fetched } from './refreshingCache.js';
import { PlatformCache } from './platform.js';

interface SignedPiece {
  raw: string;
  signatureHex: string;
  issuerChain: string;
}
interface CrlPiece {
  der: Uint8Array;
  issuerChain: string;
}

export interface PccsSourceOptions {
  root: Certificate;
  now?: () => number;
  events?: CacheEvents;
  refreshAheadMs?: number;
}

function signedPiece(s: SignedJson, key: 'tcbInfo' | 'enclaveIdentity'): SignedPiece {
  const { raw, signatureHex } = splitSignedBody(s.body, key);
  return { raw, signatureHex, issuerChain: s.issuerChain };
}

export class PccsCollateralSource implements TypeACollateralSource {
  private readonly tcb: RefreshingCache<SignedPiece>;
  private readonly qe: RefreshingCache<SignedPiece>;
  private readonly pckCrl: RefreshingCache<CrlPiece>;
  private readonly rootCrl: RefreshingCache<CrlPiece>;
  private readonly verified = new LRUCache<string, { version: string; vc: VerifiedCollateral }>({ max: 256 });
  private readonly platforms = new PlatformCache();

  constructor(
    private readonly client: PccsClient,
    private readonly opts: PccsSourceOptions,
  ) {
    const common = { ...(opts.now ? { now: opts.now } : {}), ...(opts.events ? { events: opts.events } : {}), ...(opts.refreshAheadMs !== undefined ? { refreshAheadMs: opts.refreshAheadMs } : {}) };
    this.tcb = new RefreshingCache('tcbInfo', common);
    this.qe = new RefreshingCache('qeIdentity', common);
    this.pckCrl = new RefreshingCache('pckCrl', common);
    this.rootCrl = new RefreshingCache('rootCaCrl', common);
  }

  private signed(cache: RefreshingCache<SignedPiece>, key: string, load: () => Promise<SignedJson>, which: 'tcbInfo' | 'enclaveIdentity') {
    return cache.get(key, async (): Promise<Fetched<SignedPiece>> => {
      const piece = signedPiece(await load(), which);
      const parsed = which === 'tcbInfo' ? parseTcbInfo(piece.raw) : parseQeIdentity(piece.raw);
      return { value: piece, thisUpdate: parsed.issueDate, nextUpdate: parsed.nextUpdate };
    });
  }

  private crl(cache: RefreshingCache<CrlPiece>, key: string, load: () => Promise<CrlPiece>) {
    return cache.get(key, async (): Promise<Fetched<CrlPiece>> => {
      const piece = await load();
      const crl = parseCrl(piece.der, key);
      return { value: piece, thisUpdate: crl.thisUpdate, nextUpdate: crl.nextUpdate };
    });
  }

  private readonly ids = new WeakMap<object, number>();
  private nextId = 1;

  private idOf(o: object): number {
    let id = this.ids.get(o);
    if (id === undefined) {
      id = this.nextId++;
      this.ids.set(o, id);
    }
    return id;
  }

  /**
   * The raw collateral for a quote, fetched once per refresh for the whole process. `version`
   * changes exactly when one of the four pieces was refreshed, so that consumers (worker threads)
   * can cache their verification of it.
   */
  async rawForQuote(quote: Pick<Quote, 'pckCertPems'>): Promise<{ key: string; version: string; collateral: Collateral }> {
    const { fmspc, ca } = this.platforms.of(quote);
    const [tcb, qe, pck, root] = await Promise.all([
      this.signed(this.tcb, fmspc, () => this.client.tcbInfo(fmspc), 'tcbInfo'),
      this.signed(this.qe, 'qe', () => this.client.qeIdentity(), 'enclaveIdentity'),
      this.crl(this.pckCrl, `pckCrl:${ca}`, () => this.client.pckCrl(ca)),
      this.crl(this.rootCrl, 'rootCaCrl', async () => ({ der: await this.client.rootCaCrl(), issuerChain: '' })),
    ]);
    const key = `${fmspc}:${ca}`;
    const version = `${key}#${[tcb, qe, pck, root].map((p) => this.idOf(p)).join('.')}`;
    const collateral: Collateral = {
      pckCrl: pck.der,
      pckCrlIssuerChain: pck.issuerChain,
      rootCaCrl: root.der,
      tcbInfoIssuerChain: tcb.issuerChain,
      tcbInfoRaw: tcb.raw,
      tcbInfoSignature: tcb.signatureHex,
      qeIdentityIssuerChain: qe.issuerChain,
      qeIdentityRaw: qe.raw,
      qeIdentitySignature: qe.signatureHex,
    };
    return { key, version, collateral };
  }

  /** The component caches, for metrics. */
  caches(): { name: string; hits: number; misses: number; size: number }[] {
    return [this.tcb, this.qe, this.pckCrl, this.rootCrl].map((c) => ({ name: c.name, hits: c.hits, misses: c.misses, size: c.size }));
  }

  async forQuote(quote: Quote, time: number): Promise<VerifiedCollateral> {
    const { key, version, collateral } = await this.rawForQuote(quote);
    const hit = this.verified.get(key);
    if (hit && hit.version === version) return hit.vc;
    const vc = verifyCollateral(collateral, { root: this.opts.root, time });
    this.verified.set(key, { version, vc });
    return vc;
  }
}
