/**
 * Which collateral a quote needs: the FMSPC in its PCK certificate and the kind of PCK CA that
 * issued it (processor or platform), cached by the leaf PEM. Used by the PCCS source and the
 * CLI's collateral directory alike; the certificates are verified later, in the quote checks.
 */
import { LRUCache } from 'lru-cache';
import { parsePemChain, type Certificate } from '../attestation/x509/certificate.js';
import { pckExtension } from '../attestation/typeA/pckExtension.js';
import { typeAError } from '../attestation/typeA/errors.js';
import type { Quote } from '../attestation/typeA/quote.js';
import type { PckCa } from './pccsClient.js';

export interface Platform {
  /** Lower-case hex. */
  fmspc: string;
  ca: PckCa;
}

/** FMSPC and PCK CA kind named by a quote's PCK certificate chain (not cached). */
export function quotePlatform(quote: Pick<Quote, 'pckCertPems'>): Platform {
  const [leaf, intermediate] = parsePemChain(`${quote.pckCertPems[0]}\n${quote.pckCertPems[1]}`) as [Certificate, Certificate];
  const cn = /CN=([^,]+)/.exec(intermediate.subjectText)?.[1] ?? '';
  const ca: PckCa | undefined = cn === 'Intel SGX PCK Processor CA' ? 'processor' : cn === 'Intel SGX PCK Platform CA' ? 'platform' : undefined;
  if (!ca) typeAError('TYPEA_PCK_CHAIN_INVALID', `PCK intermediate is "${intermediate.subjectText}", expected the Intel SGX PCK Processor or Platform CA`);
  return { fmspc: Buffer.from(pckExtension(leaf).fmspc).toString('hex'), ca };
}

/** `quotePlatform` behind an LRU cache keyed by the PCK leaf PEM. */
export class PlatformCache {
  private readonly platforms = new LRUCache<string, Platform>({ max: 1024 });

  of(quote: Pick<Quote, 'pckCertPems'>): Platform {
    const leafPem = quote.pckCertPems[0];
    const hit = this.platforms.get(leafPem);
    if (hit) return hit;
    const p = quotePlatform(quote);
    this.platforms.set(leafPem, p);
    return p;
  }
}
