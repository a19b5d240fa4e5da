/**
 * typeA collateral as four pieces (TCB info by FMSPC, QE identity, the PCK CRL of the quote's CA,
 * the root CA CRL) and the one assembler every source shares: a source says where each piece
 * comes from (a PCCS with refreshing caches, a directory written by `collateral fetch`, or a
 * directory with a PCCS behind it), the assembler turns the pieces into a quote's Collateral with
 * a version, and caches the verified combination.
 */
import { LRUCache } from 'lru-cache';
import type { Certificate } from '../attestation/x509/certificate.js';
import { splitSignedBody, type Collateral } from '../attestation/typeA/collateral.js';
import { verifyCollateral, type VerifiedCollateral } from '../attestation/typeA/verify.js';
import type { Quote } from '../attestation/typeA/quote.js';
import type { TypeACollateralSource } from '../attestation/typeA/verify.js';
import type { PckCa } from './pccsClient.js';
import { PlatformCache } from './platform.js';

/** A signed JSON piece: the exact signed text, its signature and the issuer chain (PEM). */
export interface SignedPiece {
  raw: string;
  signatureHex: string;
  issuerChain: string;
}
/** A CRL piece: DER and its issuer chain (PEM; empty for the root CA CRL). */
export interface CrlPiece {
  der: Uint8Array;
  issuerChain: string;
}

/** Cuts a PCS/PCCS wire body into a signed piece. */
export function signedPiece(body: string, issuerChain: string, key: 'tcbInfo' | 'enclaveIdentity'): SignedPiece {
  const { raw, signatureHex } = splitSignedBody(body, key);
  return { raw, signatureHex, issuerChain };
}

/** Where the pieces come from. A piece object stays the same object until it is refreshed. */
export interface CollateralPieces {
  tcbInfo(fmspc: string): Promise<SignedPiece>;
  qeIdentity(): Promise<SignedPiece>;
  pckCrl(ca: PckCa): Promise<CrlPiece>;
  rootCaCrl(): Promise<CrlPiece>;
}

export abstract class PieceCollateralSource implements TypeACollateralSource, CollateralPieces {
  private readonly verified = new LRUCache<string, { version: string; vc: VerifiedCollateral }>({ max: 256 });
  private readonly platforms = new PlatformCache();
  private readonly ids = new WeakMap<object, number>();
  private nextId = 1;

  constructor(protected readonly root: Certificate) {}

  abstract tcbInfo(fmspc: string): Promise<SignedPiece>;
  abstract qeIdentity(): Promise<SignedPiece>;
  abstract pckCrl(ca: PckCa): Promise<CrlPiece>;
  abstract rootCaCrl(): Promise<CrlPiece>;

  private idOf(o: object): number {
    let id = this.ids.get(o);
    if (id === undefined) {
      id = this.nextId++;
      this.ids.set(o, id);
    }
    return id;
  }

  /**
   * The raw collateral for a quote. `version` changes exactly when one of the four pieces was
   * refreshed, so that consumers (worker threads) can cache their verification of it.
   */
  async rawForSubject(quote: Pick<Quote, 'pckCertPems'>): Promise<{ key: string; version: string; collateral: Collateral }> {
    const { fmspc, ca } = this.platforms.of(quote);
    const [tcb, qe, pck, root] = await Promise.all([this.tcbInfo(fmspc), this.qeIdentity(), this.pckCrl(ca), this.rootCaCrl()]);
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

  async forReport(quote: Quote, time: number): Promise<VerifiedCollateral> {
    const { key, version, collateral } = await this.rawForSubject(quote);
    const hit = this.verified.get(key);
    if (hit && hit.version === version) return hit.vc;
    const vc = verifyCollateral(collateral, { root: this.root, time });
    this.verified.set(key, { version, vc });
    return vc;
  }
}
