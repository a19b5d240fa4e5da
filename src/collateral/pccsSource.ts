/**
 * typeA collateral from a PCCS (or Intel PCS): fetches the four pieces a quote needs (TCB info by
 * FMSPC, QE identity, the PCK CRL of the quote's CA, the root CA CRL), caches each until its own
 * nextUpdate, and caches the verified combination so that a warm verification does no signature
 * work on collateral. Verification of the combination happens at the requested verification
 * time; cached combinations are re-checked against each verification time by verifyQuote.
 */
import { parseCrl } from '../attestation/x509/crl.js';
import type { Certificate } from '../attestation/x509/certificate.js';
import { parseTcbInfo } from '../attestation/typeA/tcbInfo.js';
import { parseQeIdentity } from '../attestation/typeA/qeIdentity.js';
import type { PccsClient, PckCa, SignedJson } from './pccsClient.js';
import { RefreshingCache, type CacheEvents, type Fetched } from './refreshingCache.js';
import { PieceCollateralSource, signedPiece, type CrlPiece, type SignedPiece } from './pieces.js';
import { crlDocument, type ArchivedDocument } from './archive.js';

export interface PccsSourceOptions {
  root: Certificate;
  now?: () => number;
  events?: CacheEvents;
  refreshAheadMs?: number;
  /** Each document fetched, as served (the collateral archive keeps what it is given: archive.ts). */
  onFetched?: (d: ArchivedDocument) => void;
}

export class PccsCollateralSource extends PieceCollateralSource {
  private readonly tcb: RefreshingCache<SignedPiece>;
  private readonly qe: RefreshingCache<SignedPiece>;
  private readonly pckCrls: RefreshingCache<CrlPiece>;
  private readonly rootCrl: RefreshingCache<CrlPiece>;

  private readonly onFetched: ((d: ArchivedDocument) => void) | undefined;

  constructor(
    private readonly client: PccsClient,
    opts: PccsSourceOptions,
  ) {
    super(opts.root);
    this.onFetched = opts.onFetched;
    const common = { ...(opts.now ? { now: opts.now } : {}), ...(opts.events ? { events: opts.events } : {}), ...(opts.refreshAheadMs !== undefined ? { refreshAheadMs: opts.refreshAheadMs } : {}) };
    this.tcb = new RefreshingCache('tcbInfo', common);
    this.qe = new RefreshingCache('qeIdentity', common);
    this.pckCrls = new RefreshingCache('pckCrl', common);
    this.rootCrl = new RefreshingCache('rootCaCrl', common);
  }

  private signed(cache: RefreshingCache<SignedPiece>, key: string, load: () => Promise<SignedJson>, which: 'tcbInfo' | 'enclaveIdentity') {
    return cache.get(key, async (): Promise<Fetched<SignedPiece>> => {
      const s = await load();
      const piece = signedPiece(s.body, s.issuerChain, which);
      this.onFetched?.({ kind: which === 'tcbInfo' ? 'tcbInfo' : 'qeIdentity', body: s.body, issuerChain: s.issuerChain });
      const parsed = which === 'tcbInfo' ? parseTcbInfo(piece.raw) : parseQeIdentity(piece.raw);
      return { value: piece, thisUpdate: parsed.issueDate, nextUpdate: parsed.nextUpdate };
    });
  }

  private crl(cache: RefreshingCache<CrlPiece>, key: string, kind: 'pckCrl' | 'rootCaCrl', load: () => Promise<CrlPiece>) {
    return cache.get(key, async (): Promise<Fetched<CrlPiece>> => {
      const piece = await load();
      const crl = parseCrl(piece.der, key);
      this.onFetched?.(crlDocument(kind, piece.der, piece.issuerChain));
      return { value: piece, thisUpdate: crl.thisUpdate, nextUpdate: crl.nextUpdate };
    });
  }

  /** The PCCS base URL (for messages). */
  get url(): string {
    return this.client.baseUrl;
  }

  tcbInfo(fmspc: string): Promise<SignedPiece> {
    return this.signed(this.tcb, fmspc, () => this.client.tcbInfo(fmspc), 'tcbInfo');
  }

  qeIdentity(): Promise<SignedPiece> {
    return this.signed(this.qe, 'qe', () => this.client.qeIdentity(), 'enclaveIdentity');
  }

  pckCrl(ca: PckCa): Promise<CrlPiece> {
    return this.crl(this.pckCrls, `pckCrl:${ca}`, 'pckCrl', () => this.client.pckCrl(ca));
  }

  rootCaCrl(): Promise<CrlPiece> {
    return this.crl(this.rootCrl, 'rootCaCrl', 'rootCaCrl', async () => ({ der: await this.client.rootCaCrl(), issuerChain: '' }));
  }

  /** The component caches, for metrics. */
  caches(): { name: string; hits: number; misses: number; size: number }[] {
    return [this.tcb, this.qe, this.pckCrls, this.rootCrl].map((c) => ({ name: c.name, hits: c.hits, misses: c.misses, size: c.size }));
  }
}
