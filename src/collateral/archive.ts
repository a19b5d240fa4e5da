/**
 * The collateral archive: every Intel-signed typeA document the verifier is given (TCB infos, QE
 * identities, lists of TCB evaluation data numbers, Root CA and PCK CRLs), each kept as served,
 * content-addressed by the SHA-256 of its signed bytes, and indexed by FMSPC and TCB evaluation
 * number, so that an update can be judged under the evaluation in force at its own time long after
 * Intel stopped serving it, and so that another auditor can import exactly the same documents.
 *
 * A document is admitted only when its signature chain verifies to the pinned root: a signed JSON
 * by its [TCB Signing, root] chain validated at its own issueDate, a CRL by the pinned root (the
 * Root CA CRL) or by its PCK CA chain validated at its thisUpdate. Documents are checked again
 * whenever an archive is opened. Layout (one file per document):
 *
 *   archive.json                   {"format":"oracle-verifier-collateral-archive/1"}
 *   <kind>/<sha256>.json           {"kind","body","issuerChain"}: body is the PCS wire JSON text
 *                                  (TCB info, QE identity, evaluation list) or the CRL's DER in hex
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { VerifierError } from '../errors.js';
import type { Certificate } from '../attestation/x509/certificate.js';
import { parseCrl, verifyCrlCovering, type Crl } from '../attestation/x509/crl.js';
import { splitSignedBody } from '../attestation/typeA/collateral.js';
import { verifySignedAtIssue } from '../attestation/typeA/signedAtIssue.js';
import { verifyTcbEvaluationList, type TcbEvaluationList } from '../attestation/typeA/tcbEvaluations.js';
import { collateralPemChain, commonName, verifyCollateralChain } from '../attestation/typeA/signingChain.js';
import { typeAError } from '../attestation/typeA/errors.js';
import type { CollateralArchiveCode } from './errors.js';
import type { PckCa } from './pccsClient.js';

export const ARCHIVE_FORMAT = 'oracle-verifier-collateral-archive/1';
export const ARCHIVED_KINDS = ['tcbInfo', 'qeIdentity', 'tcbEvaluations', 'rootCaCrl', 'pckCrl'] as const;
export type ArchivedKind = (typeof ARCHIVED_KINDS)[number];

/** One document as served: the PCS wire JSON text, or a CRL's DER in hex; its issuer chain (PEM; '' for the Root CA CRL). */
export interface ArchivedDocument {
  readonly kind: ArchivedKind;
  readonly body: string;
  readonly issuerChain: string;
}

/** A CRL as an archived document: its DER in hex, with its issuer chain (none for the Root CA CRL). */
export function crlDocument(kind: 'pckCrl' | 'rootCaCrl', der: Uint8Array, issuerChain: string): ArchivedDocument {
  return { kind, body: Buffer.from(der).toString('hex'), issuerChain: kind === 'rootCaCrl' ? '' : issuerChain };
}

/** A document whose signatures were verified, with what it is indexed by. */
export interface Authenticated {
  readonly key: string;
  readonly document: ArchivedDocument;
  /** The exact signed text (signed JSON) and its signature hex. */
  readonly raw?: string;
  readonly signatureHex?: string;
  readonly fmspc?: string;
  readonly evaluation?: number;
  /** A TCB info's or QE identity's issueDate (epoch ms): which of two copies is newer. */
  readonly issueDate?: number;
  readonly list?: TcbEvaluationList;
  readonly crl?: Crl;
  readonly ca?: PckCa;
}

function invalid(message: string): never {
  throw new VerifierError<CollateralArchiveCode>('COLLATERAL_ARCHIVE_INVALID', message);
}

const sha256 = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');

const WIRE_KEY = { tcbInfo: 'tcbInfo', qeIdentity: 'enclaveIdentity', tcbEvaluations: 'tcbEvaluationDataNumbers' } as const;

/** Verifies one document's signatures to `root` and says what it is; throws the failing check's error. */
export function authenticate(d: ArchivedDocument, root: Certificate): Authenticated {
  if (typeof d !== 'object' || d === null || !(ARCHIVED_KINDS as readonly string[]).includes(d.kind) || typeof d.body !== 'string' || typeof d.issuerChain !== 'string') {
    invalid(`a document must be {"kind": one of ${ARCHIVED_KINDS.join(', ')}, "body": string, "issuerChain": string}`);
  }
  if (d.kind === 'rootCaCrl' || d.kind === 'pckCrl') {
    if (!/^(?:[0-9a-f]{2})+$/i.test(d.body)) invalid(`a ${d.kind} body must be the CRL's DER in hex`);
    const crl = parseCrl(new Uint8Array(Buffer.from(d.body, 'hex')), `typeA ${d.kind}`);
    if (d.kind === 'rootCaCrl') {
      verifyCrlCovering(crl, root, crl.thisUpdate, 'typeA Root CA CRL');
      return { key: sha256(crl.tbs), document: d, crl };
    }
    const chain = collateralPemChain(d.issuerChain, 'PCK CRL issuer chain', 'TYPEA_PCK_CRL_ISSUER_CHAIN_INVALID');
    if (chain.length !== 2) typeAError('TYPEA_PCK_CRL_ISSUER_CHAIN_INVALID', `PCK CRL issuer chain has ${chain.length} certificate(s), expected 2 (PCK CA, root)`);
    const cn = commonName(chain[0]!);
    const ca: PckCa | undefined = cn === 'Intel SGX PCK Processor CA' ? 'processor' : cn === 'Intel SGX PCK Platform CA' ? 'platform' : undefined;
    if (!ca) typeAError('TYPEA_PCK_CRL_ISSUER_CHAIN_INVALID', `PCK CRL issuer is "${chain[0]!.subjectText}", expected the Intel SGX PCK Processor or Platform CA`);
    verifyCollateralChain(chain, { time: crl.thisUpdate, root, label: 'typeA PCK CRL issuer chain (at the CRL\'s thisUpdate)' }, 'TYPEA_PCK_CRL_ISSUER_CHAIN_INVALID');
    verifyCrlCovering(crl, chain[0]!, crl.thisUpdate, 'typeA PCK CRL');
    return { key: sha256(crl.tbs), document: d, crl, ca };
  }
  const { raw, signatureHex } = splitSignedBody(d.body, WIRE_KEY[d.kind]);
  if (d.kind === 'tcbEvaluations') {
    const list = verifyTcbEvaluationList({ raw, signatureHex, issuerChain: d.issuerChain }, root);
    return { key: sha256(raw), document: d, raw, signatureHex, list };
  }
  const { parsed } = verifySignedAtIssue(d.kind, raw, signatureHex, d.issuerChain, root);
  const fmspc = 'fmspc' in parsed ? Buffer.from(parsed.fmspc).toString('hex') : undefined;
  return { key: sha256(raw), document: d, raw, signatureHex, evaluation: parsed.tcbEvaluationDataNumber, issueDate: parsed.issueDate, ...(fmspc !== undefined ? { fmspc } : {}) };
}

export class CollateralArchive {
  private readonly byKey = new Map<string, Authenticated>();

  private constructor(
    readonly dir: string,
    private readonly root: Certificate,
  ) {}

  /** Opens (creating with `create`) the archive at `dir`, checking every document in it again. */
  static open(dir: string, root: Certificate, o: { create?: boolean } = {}): CollateralArchive {
    const a = new CollateralArchive(dir, root);
    const marker = join(dir, 'archive.json');
    if (!existsSync(marker)) {
      if (!o.create) invalid(`${dir} is not a collateral archive (no archive.json; "oracle-verifier collateral import" creates one)`);
      if (existsSync(dir) && readdirSync(dir).length > 0) invalid(`${dir} is not empty and not a collateral archive: import into a new directory`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(marker, `${JSON.stringify({ format: ARCHIVE_FORMAT })}\n`);
    }
    let format: unknown;
    try {
      format = (JSON.parse(readFileSync(marker, 'utf8')) as { format?: unknown }).format;
    } catch (e) {
      invalid(`${marker}: not readable JSON (${(e as Error).message})`);
    }
    if (format !== ARCHIVE_FORMAT) invalid(`${marker}: format ${JSON.stringify(format)}, expected ${ARCHIVE_FORMAT}`);
    for (const kind of ARCHIVED_KINDS) {
      const sub = join(dir, kind);
      if (!existsSync(sub)) continue;
      for (const f of readdirSync(sub).sort()) {
        if (!f.endsWith('.json')) continue;
        const file = join(sub, f);
        let doc: ArchivedDocument;
        try {
          doc = JSON.parse(readFileSync(file, 'utf8')) as ArchivedDocument;
        } catch (e) {
          invalid(`${file}: not readable JSON (${(e as Error).message})`);
        }
        let auth: Authenticated;
        try {
          auth = authenticate(doc, root);
        } catch (e) {
          invalid(`${file}: ${e instanceof VerifierError ? `${e.code}: ${e.message}` : String(e)}`);
        }
        if (doc.kind !== kind || `${auth.key}.json` !== f) invalid(`${file}: holds a ${doc.kind} whose key is ${auth.key}: it was not written by this verifier`);
        a.byKey.set(auth.key, auth);
      }
    }
    return a;
  }

  /** Adds a document after verifying it (refused with the failing check's error); `added` false when it was there already. */
  add(d: ArchivedDocument): { key: string; kind: ArchivedKind; added: boolean } {
    const auth = authenticate(d, this.root);
    if (this.byKey.has(auth.key)) return { key: auth.key, kind: d.kind, added: false };
    const sub = join(this.dir, d.kind);
    mkdirSync(sub, { recursive: true });
    const file = join(sub, `${auth.key}.json`);
    const doc: ArchivedDocument = { kind: d.kind, body: d.body, issuerChain: d.issuerChain };
    writeFileSync(`${file}.tmp`, `${JSON.stringify(doc)}\n`);
    renameSync(`${file}.tmp`, file);
    this.byKey.set(auth.key, { ...auth, document: doc });
    return { key: auth.key, kind: d.kind, added: true };
  }

  /** Every document, by kind then key (the order of an export). */
  all(): Authenticated[] {
    return [...this.byKey.values()].sort((x, y) => ARCHIVED_KINDS.indexOf(x.document.kind) - ARCHIVED_KINDS.indexOf(y.document.kind) || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  }

  evaluationLists(): TcbEvaluationList[] {
    return this.all().flatMap((a) => (a.list ? [a.list] : []));
  }

  /** The TCB info of `fmspc` (lower-case hex) and `evaluation`; the newest copy when several. */
  tcbInfo(fmspc: string, evaluation: number): Authenticated | undefined {
    return this.newest(this.all().filter((a) => a.document.kind === 'tcbInfo' && a.fmspc === fmspc.toLowerCase() && a.evaluation === evaluation));
  }

  qeIdentity(evaluation: number): Authenticated | undefined {
    return this.newest(this.all().filter((a) => a.document.kind === 'qeIdentity' && a.evaluation === evaluation));
  }

  /** The newest Root CA CRL, or PCK CRL of `ca` (by thisUpdate). */
  newestCrl(kind: 'rootCaCrl' | 'pckCrl', ca?: PckCa): Authenticated | undefined {
    const crls = this.all().filter((a) => a.document.kind === kind && (kind === 'rootCaCrl' || a.ca === ca));
    return crls.sort((x, y) => y.crl!.thisUpdate - x.crl!.thisUpdate)[0];
  }

  /** The copy issued last; between copies of the same issueDate, the first by key (all() is sorted by key, the sort is stable). */
  private newest(xs: Authenticated[]): Authenticated | undefined {
    return xs.sort((x, y) => y.issueDate! - x.issueDate!)[0];
  }
}
