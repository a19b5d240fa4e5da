/**
 * Offline typeA collateral: a directory written by `oracle-verifier collateral fetch`, read by
 * the server (config `collateralDir`) and by the CLI (`--collateral-dir`), so that typeA verifies
 * without a PCCS, and an audit can be re-run later on exactly the same Intel collateral. Layout
 * (every file as served by the PCCS / Intel PCS, nothing re-serialised):
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
 * FMSPCs are lower-case hex. Each piece is read from the directory when its files are there;
 * a piece the directory lacks comes from the fallback PCCS source when one is given, else (or
 * when that fails too) the quote fails with TYPEA_COLLATERAL_UNAVAILABLE naming the missing file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { VerifierError } from '../errors.js';
import type { Certificate } from '../attestation/x509/certificate.js';
import type { CollateralDirCode } from './errors.js';
import type { PckCa } from './pccsClient.js';
import type { PccsCollateralSource } from './pccsSource.js';
import { crlDocument, type ArchivedDocument } from './archive.js';
import { PieceCollateralSource, signedPiece, type CrlPiece, type SignedPiece } from './pieces.js';

export const COLLATERAL_DIR_FORMAT = 'oracle-verifier-collateral/1';

export interface CollateralManifest {
  format: string;
  pccsUrl: string;
  fetchedAt: string;
  fmspcs: string[];
  pckCrlCas: PckCa[];
}

/** File names of the layout, relative to the directory. */
export const DIR_FILES = {
  manifest: 'manifest.json',
  tcbInfo: (fmspc: string) => `tcb/${fmspc}.json`,
  tcbInfoChain: (fmspc: string) => `tcb/${fmspc}.issuer-chain.pem`,
  qeIdentity: 'qe_identity.json',
  qeIdentityChain: 'qe_identity.issuer-chain.pem',
  pckCrl: (ca: PckCa) => `pckcrl/${ca}.der`,
  pckCrlChain: (ca: PckCa) => `pckcrl/${ca}.issuer-chain.pem`,
  rootCaCrl: 'rootcacrl.der',
} as const;

function invalid(message: string): never {
  throw new VerifierError<CollateralDirCode>('COLLATERAL_DIR_INVALID', message);
}

/** Reads and checks manifest.json; `what` names the setting in messages (`collateralDir`, `--collateral-dir`). */
export function readManifest(dir: string, what: string): CollateralManifest {
  const mf = join(dir, DIR_FILES.manifest);
  if (!existsSync(mf)) invalid(`${what} ${dir}: no manifest.json (write the directory with "oracle-verifier collateral fetch")`);
  let m: CollateralManifest;
  try {
    m = JSON.parse(readFileSync(mf, 'utf8')) as CollateralManifest;
  } catch (e) {
    invalid(`${what} ${dir}: manifest.json is not JSON (${(e as Error).message})`);
  }
  if (m?.format !== COLLATERAL_DIR_FORMAT || !Array.isArray(m.fmspcs) || !Array.isArray(m.pckCrlCas)) {
    invalid(`${what} ${dir}: manifest.json is not of format ${COLLATERAL_DIR_FORMAT}`);
  }
  return m;
}

/** A file of the layout that cannot be read (absent, or unreadable), by its name. */
class Missing {
  constructor(readonly item: string) {}
}

export interface DirSourceOptions {
  /** Names the setting in messages; default `collateral directory`. */
  what?: string;
  /** Where a piece the directory lacks is fetched; none: such a piece is an error. */
  fallback?: PccsCollateralSource;
  /** Each document read from the directory, as stored (a collateral archive keeps what it is given: archive.ts). */
  onRead?: (d: ArchivedDocument) => void;
}

/** A piece's files as an archived document (its kind by its file). */
function archivedOf(main: string, body: Buffer, issuerChain: string): ArchivedDocument {
  if (main === DIR_FILES.qeIdentity) return { kind: 'qeIdentity', body: body.toString('utf8'), issuerChain };
  if (main === DIR_FILES.rootCaCrl) return crlDocument('rootCaCrl', body, '');
  if (main === DIR_FILES.pckCrl('processor') || main === DIR_FILES.pckCrl('platform')) return crlDocument('pckCrl', body, issuerChain);
  return { kind: 'tcbInfo', body: body.toString('utf8'), issuerChain };
}

export class DirCollateralSource extends PieceCollateralSource {
  readonly manifest: CollateralManifest;
  /** Pieces read from the directory, by their main file (the files do not change). */
  private readonly pieces = new Map<string, SignedPiece | CrlPiece>();
  private readonly what: string;

  constructor(
    readonly dir: string,
    root: Certificate,
    private readonly opts: DirSourceOptions = {},
  ) {
    super(root);
    this.what = opts.what ?? 'collateral directory';
    this.manifest = readManifest(dir, this.what);
  }

  private file(rel: string): Buffer | Missing {
    try {
      return readFileSync(join(this.dir, rel));
    } catch {
      return new Missing(rel);
    }
  }

  /**
   * The piece whose files are `main` (+ `chain`): from the directory, else from the fallback,
   * else TYPEA_COLLATERAL_UNAVAILABLE naming the missing file and why the fallback failed.
   */
  private async piece<T extends SignedPiece | CrlPiece>(main: string, chain: string | undefined, make: (body: Buffer, chain: string) => T, fallback: (f: PccsCollateralSource) => Promise<T>, hint = ''): Promise<T> {
    const hit = this.pieces.get(main);
    if (hit) return hit as T;
    const body = this.file(main);
    const chainFile = chain === undefined ? Buffer.alloc(0) : this.file(chain);
    if (!(body instanceof Missing) && !(chainFile instanceof Missing)) {
      const p = make(body, chainFile.toString('utf8'));
      this.pieces.set(main, p);
      this.opts.onRead?.(archivedOf(main, body, chainFile.toString('utf8')));
      return p;
    }
    const missing = body instanceof Missing ? body.item : (chainFile as Missing).item;
    const lacks = `typeA: ${this.what} ${this.dir} lacks ${missing}${hint}`;
    const f = this.opts.fallback;
    if (!f) throw new VerifierError('TYPEA_COLLATERAL_UNAVAILABLE', `${lacks}, and no PCCS is configured to fall back to`);
    try {
      return await fallback(f);
    } catch (e) {
      const why = e instanceof VerifierError ? `${e.code}: ${e.message}` : String(e);
      throw new VerifierError('TYPEA_COLLATERAL_UNAVAILABLE', `${lacks}, and the PCCS at ${f.url} could not supply it (${why})`, { cause: e });
    }
  }

  tcbInfo(fmspc: string): Promise<SignedPiece> {
    return this.piece(
      DIR_FILES.tcbInfo(fmspc),
      DIR_FILES.tcbInfoChain(fmspc),
      (b, chain) => signedPiece(b.toString('utf8'), chain, 'tcbInfo'),
      (f) => f.tcbInfo(fmspc),
      ` (no TCB info for FMSPC ${fmspc}; fetch it with "oracle-verifier collateral fetch --fmspc ${fmspc}")`,
    );
  }

  qeIdentity(): Promise<SignedPiece> {
    return this.piece(DIR_FILES.qeIdentity, DIR_FILES.qeIdentityChain, (b, chain) => signedPiece(b.toString('utf8'), chain, 'enclaveIdentity'), (f) => f.qeIdentity());
  }

  pckCrl(ca: PckCa): Promise<CrlPiece> {
    return this.piece(DIR_FILES.pckCrl(ca), DIR_FILES.pckCrlChain(ca), (b, chain) => ({ der: new Uint8Array(b), issuerChain: chain }), (f) => f.pckCrl(ca), ` (no ${ca} PCK CRL)`);
  }

  rootCaCrl(): Promise<CrlPiece> {
    return this.piece(DIR_FILES.rootCaCrl, undefined, (b) => ({ der: new Uint8Array(b), issuerChain: '' }), (f) => f.rootCaCrl());
  }
}
