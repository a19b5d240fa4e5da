/**
 * Offline typeA collateral: a directory written by `oracle-verifier collateral fetch` and read by
 * `--collateral-dir`, so that an audit can be re-run later, without network, on exactly the same
 * Intel collateral. Layout (every file as served by the PCCS / Intel PCS, nothing re-serialised):
 *
 *   manifest.json                      {"format":"oracle-verifier-collateral/1","pccsUrl","fetchedAt",
 *                                       "fmspcs":[…],"pckCrlCas":["processor"|"platform",…]}
 *   tcb/<fmspc>.json                   body of GET tcb?fmspc=<fmspc> ({"tcbInfo":…,"signature":…})
 *   tcb/<fmspc>.issuer-chain.pem       its TCB-Info-Issuer-Chain header, URL-decoded (PEM)
 *   qe_identity.json                   body of GET qe/identity
 *   qe_identity.issuer-chain.pem       its SGX-Enclave-Identity-Issuer-Chain header (PEM)
 *   pckcrl/<ca>.der                    PCK CRL of the processor / platform CA (DER)
 *   pckcrl/<ca>.issuer-chain.pem       its SGX-PCK-CRL-Issuer-Chain header (PEM)
 *   rootcacrl.der                      Intel SGX Root CA CRL (DER)
 *
 * FMSPCs are lower-case hex. The reader is a TypeACollateralSource (and offers `rawForQuote`, as
 * the PCCS source does, for the worker pool).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LRUCache } from 'lru-cache';
import { VerifierError } from '../errors.js';
import type { Certificate } from '../attestation/x509/certificate.js';
import { splitSignedBody, type Collateral } from '../attestation/typeA/collateral.js';
import { verifyCollateral, type VerifiedCollateral } from '../attestation/typeA/verify.js';
import type { Quote } from '../attestation/typeA/quote.js';
import type { TypeACollateralSource } from '../verify/typeA.js';
import type { PccsClient, PckCa } from '../collateral/pccsClient.js';
import { cliError } from './errors.js';
import { PlatformCache } from '../collateral/platform.js';

export const COLLATERAL_DIR_FORMAT = 'oracle-verifier-collateral/1';

export interface CollateralManifest {
  format: string;
  pccsUrl: string;
  fetchedAt: string;
  fmspcs: string[];
  pckCrlCas: PckCa[];
}

function writeAtomic(file: string, data: string | Uint8Array): void {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

/** Fetches the collateral of the given FMSPCs (and both PCK CRLs when served) into `dir`. */
export async function fetchCollateralDir(client: PccsClient, pccsUrl: string, fmspcs: readonly string[], dir: string, log: (line: string) => void = () => {}): Promise<CollateralManifest> {
  const list = [...new Set(fmspcs.map((f) => f.toLowerCase()))];
  for (const f of list) if (!/^[0-9a-f]{12}$/.test(f)) throw cliError('CLI_USAGE', `--fmspc ${JSON.stringify(f)}: expected 6 bytes of hex (12 hex digits)`);
  if (list.length === 0) throw cliError('CLI_USAGE', 'collateral fetch: give at least one --fmspc');
  mkdirSync(join(dir, 'tcb'), { recursive: true });
  mkdirSync(join(dir, 'pckcrl'), { recursive: true });
  for (const f of list) {
    const t = await client.tcbInfo(f);
    splitSignedBody(t.body, 'tcbInfo'); // refuse to store a body the verifier cannot use
    writeAtomic(join(dir, 'tcb', `${f}.json`), t.body);
    writeAtomic(join(dir, 'tcb', `${f}.issuer-chain.pem`), t.issuerChain);
    log(`tcb/${f}.json: ${t.body.length} bytes`);
  }
  const qe = await client.qeIdentity();
  splitSignedBody(qe.body, 'enclaveIdentity');
  writeAtomic(join(dir, 'qe_identity.json'), qe.body);
  writeAtomic(join(dir, 'qe_identity.issuer-chain.pem'), qe.issuerChain);
  log(`qe_identity.json: ${qe.body.length} bytes`);
  const cas: PckCa[] = [];
  for (const ca of ['processor', 'platform'] as const) {
    try {
      const c = await client.pckCrl(ca);
      writeAtomic(join(dir, 'pckcrl', `${ca}.der`), c.der);
      writeAtomic(join(dir, 'pckcrl', `${ca}.issuer-chain.pem`), c.issuerChain);
      cas.push(ca);
      log(`pckcrl/${ca}.der: ${c.der.length} bytes`);
    } catch (e) {
      if (e instanceof VerifierError && e.code === 'PCCS_NOT_FOUND') {
        log(`pckcrl/${ca}: not served (404), skipped`);
        continue;
      }
      throw e;
    }
  }
  if (cas.length === 0) throw cliError('CLI_COLLATERAL_DIR_INVALID', 'collateral fetch: the PCCS served neither the processor nor the platform PCK CRL');
  const root = await client.rootCaCrl();
  writeAtomic(join(dir, 'rootcacrl.der'), root);
  log(`rootcacrl.der: ${root.length} bytes`);
  const manifest: CollateralManifest = { format: COLLATERAL_DIR_FORMAT, pccsUrl, fetchedAt: new Date().toISOString(), fmspcs: list, pckCrlCas: cas };
  writeAtomic(join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

export class DirCollateralSource implements TypeACollateralSource {
  readonly manifest: CollateralManifest;
  private readonly raw = new Map<string, Collateral>();
  private readonly verified = new LRUCache<string, VerifiedCollateral>({ max: 64 });
  private readonly platforms = new PlatformCache();

  constructor(
    private readonly dir: string,
    private readonly root: Certificate,
  ) {
    const mf = join(dir, 'manifest.json');
    if (!existsSync(mf)) throw cliError('CLI_COLLATERAL_DIR_INVALID', `--collateral-dir ${dir}: no manifest.json (write the directory with "oracle-verifier collateral fetch")`);
    let m: CollateralManifest;
    try {
      m = JSON.parse(readFileSync(mf, 'utf8')) as CollateralManifest;
    } catch (e) {
      throw cliError('CLI_COLLATERAL_DIR_INVALID', `--collateral-dir ${dir}: manifest.json is not JSON (${(e as Error).message})`);
    }
    if (m?.format !== COLLATERAL_DIR_FORMAT || !Array.isArray(m.fmspcs) || !Array.isArray(m.pckCrlCas)) {
      throw cliError('CLI_COLLATERAL_DIR_INVALID', `--collateral-dir ${dir}: manifest.json is not of format ${COLLATERAL_DIR_FORMAT}`);
    }
    this.manifest = m;
  }

  private read(rel: string): Buffer {
    try {
      return readFileSync(join(this.dir, rel));
    } catch (e) {
      throw new VerifierError('TYPEA_COLLATERAL_UNAVAILABLE', `typeA: collateral directory ${this.dir} lacks ${rel} (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
    }
  }

  /** The stored collateral for a quote's platform; `version` is fixed (the files do not change). */
  async rawForQuote(quote: Pick<Quote, 'pckCertPems'>): Promise<{ key: string; version: string; collateral: Collateral }> {
    const { fmspc, ca } = this.platforms.of(quote);
    const key = `${fmspc}:${ca}`;
    let c = this.raw.get(key);
    if (!c) {
      if (!this.manifest.fmspcs.includes(fmspc)) {
        throw new VerifierError('TYPEA_COLLATERAL_UNAVAILABLE', `typeA: collateral directory ${this.dir} has no TCB info for FMSPC ${fmspc} (fetch it with --fmspc ${fmspc})`);
      }
      if (!this.manifest.pckCrlCas.includes(ca)) throw new VerifierError('TYPEA_COLLATERAL_UNAVAILABLE', `typeA: collateral directory ${this.dir} has no ${ca} PCK CRL`);
      const tcb = splitSignedBody(this.read(`tcb/${fmspc}.json`).toString('utf8'), 'tcbInfo');
      const qe = splitSignedBody(this.read('qe_identity.json').toString('utf8'), 'enclaveIdentity');
      c = {
        pckCrl: new Uint8Array(this.read(`pckcrl/${ca}.der`)),
        pckCrlIssuerChain: this.read(`pckcrl/${ca}.issuer-chain.pem`).toString('utf8'),
        rootCaCrl: new Uint8Array(this.read('rootcacrl.der')),
        tcbInfoIssuerChain: this.read(`tcb/${fmspc}.issuer-chain.pem`).toString('utf8'),
        tcbInfoRaw: tcb.raw,
        tcbInfoSignature: tcb.signatureHex,
        qeIdentityIssuerChain: this.read('qe_identity.issuer-chain.pem').toString('utf8'),
        qeIdentityRaw: qe.raw,
        qeIdentitySignature: qe.signatureHex,
      };
      this.raw.set(key, c);
    }
    return { key, version: `dir:${key}`, collateral: c };
  }

  async forQuote(quote: Quote, time: number): Promise<VerifiedCollateral> {
    const { key, collateral } = await this.rawForQuote(quote);
    const hit = this.verified.get(key);
    if (hit) return hit;
    const vc = verifyCollateral(collateral, { root: this.root, time });
    this.verified.set(key, vc);
    return vc;
  }
}
