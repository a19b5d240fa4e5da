/**
 * What the collateral archive imports and exports: the documents found in a file or directory, and
 * the export bundle another auditor imports.
 *
 * An import source is one of:
 * - a collateral directory written by `oracle-verifier collateral fetch` (manifest.json);
 * - another archive (archive.json);
 * - an export bundle: a first line {"format":"oracle-verifier-collateral-bundle/1"}, then one
 *   document a line ({"kind","body","issuerChain"}, as in the archive);
 * - a collateral JSON of Phala's dcap-qvl (QuoteCollateralV3: tcb_info, qe_identity, the CRLs);
 * - one PCS wire body ({"tcbInfo"|"enclaveIdentity"|"tcbEvaluationDataNumbers": …, "signature"})
 *   with its issuer chain given separately (the PCS sends it in a header).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { VerifierError } from '../errors.js';
import { collateralFromDcapQvlJson } from '../attestation/typeA/collateral.js';
import { ARCHIVED_KINDS, type ArchivedDocument, type CollateralArchive } from './archive.js';
import { DIR_FILES, readManifest } from './collateralDir.js';
import type { CollateralArchiveCode } from './errors.js';

export const BUNDLE_FORMAT = 'oracle-verifier-collateral-bundle/1';

function invalid(message: string): never {
  throw new VerifierError<CollateralArchiveCode>('COLLATERAL_ARCHIVE_INVALID', message);
}

function read(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    invalid(`${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
}

const hexOf = (b: Uint8Array) => Buffer.from(b).toString('hex');
const WIRE_KINDS = { tcbInfo: 'tcbInfo', enclaveIdentity: 'qeIdentity', tcbEvaluationDataNumbers: 'tcbEvaluations' } as const;

/** The documents of a collateral directory written by `collateral fetch`. */
function fromCollateralDir(dir: string): ArchivedDocument[] {
  const m = readManifest(dir, 'import');
  const text = (rel: string) => read(join(dir, rel)).toString('utf8');
  const docs: ArchivedDocument[] = m.fmspcs.map((f) => ({ kind: 'tcbInfo', body: text(DIR_FILES.tcbInfo(f)), issuerChain: text(DIR_FILES.tcbInfoChain(f)) }));
  docs.push({ kind: 'qeIdentity', body: text(DIR_FILES.qeIdentity), issuerChain: text(DIR_FILES.qeIdentityChain) });
  for (const ca of m.pckCrlCas) docs.push({ kind: 'pckCrl', body: hexOf(read(join(dir, DIR_FILES.pckCrl(ca)))), issuerChain: text(DIR_FILES.pckCrlChain(ca)) });
  docs.push({ kind: 'rootCaCrl', body: hexOf(read(join(dir, DIR_FILES.rootCaCrl))), issuerChain: '' });
  return docs;
}

function fromArchiveDir(dir: string): ArchivedDocument[] {
  return ARCHIVED_KINDS.flatMap((kind) => {
    const sub = join(dir, kind);
    if (!existsSync(sub)) return [];
    return readdirSync(sub)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => parseDocument(read(join(sub, f)).toString('utf8'), join(sub, f)));
  });
}

function parseDocument(text: string, where: string): ArchivedDocument {
  let d: unknown;
  try {
    d = JSON.parse(text);
  } catch (e) {
    invalid(`${where}: not a JSON document (${(e as Error).message})`);
  }
  const o = d as Partial<ArchivedDocument>;
  if (typeof o !== 'object' || o === null || !(ARCHIVED_KINDS as readonly string[]).includes(o.kind as string) || typeof o.body !== 'string' || typeof o.issuerChain !== 'string') {
    invalid(`${where}: expected {"kind": one of ${ARCHIVED_KINDS.join(', ')}, "body": string, "issuerChain": string}`);
  }
  return { kind: o.kind!, body: o.body, issuerChain: o.issuerChain };
}

/** The documents a file or directory holds (see the module comment); `issuerChain` is the PEM chain of a lone PCS wire body. */
export function documentsIn(path: string, o: { issuerChain?: string } = {}): ArchivedDocument[] {
  if (!existsSync(path)) invalid(`${path}: no such file or directory`);
  if (statSync(path).isDirectory()) {
    if (existsSync(join(path, 'archive.json'))) return fromArchiveDir(path);
    if (existsSync(join(path, DIR_FILES.manifest))) return fromCollateralDir(path);
    invalid(`${path}: neither a collateral directory (manifest.json) nor an archive (archive.json)`);
  }
  const text = read(path).toString('utf8');
  const nl = text.indexOf('\n');
  const firstLine = nl < 0 ? text : text.slice(0, nl);
  if (firstLine.includes(BUNDLE_FORMAT)) {
    const [head, ...lines] = text.split('\n').filter((l) => l.trim() !== '');
    if ((JSON.parse(head!) as { format?: unknown }).format !== BUNDLE_FORMAT) invalid(`${path}: its first line is not {"format":"${BUNDLE_FORMAT}"}`);
    return lines.map((l, i) => parseDocument(l, `${path} line ${i + 2}`));
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    invalid(`${path}: neither an export bundle nor JSON (${(e as Error).message})`);
  }
  const keys = typeof parsed === 'object' && parsed !== null ? Object.keys(parsed) : [];
  if (keys.includes('tcb_info')) {
    const c = collateralFromDcapQvlJson(text);
    return [
      { kind: 'tcbInfo', body: `{"tcbInfo":${c.tcbInfoRaw},"signature":"${c.tcbInfoSignature}"}`, issuerChain: c.tcbInfoIssuerChain },
      { kind: 'qeIdentity', body: `{"enclaveIdentity":${c.qeIdentityRaw},"signature":"${c.qeIdentitySignature}"}`, issuerChain: c.qeIdentityIssuerChain },
      { kind: 'pckCrl', body: hexOf(c.pckCrl), issuerChain: c.pckCrlIssuerChain },
      { kind: 'rootCaCrl', body: hexOf(c.rootCaCrl), issuerChain: '' },
    ];
  }
  const wire = keys.find((k): k is keyof typeof WIRE_KINDS => k in WIRE_KINDS);
  if (wire) {
    if (o.issuerChain === undefined) invalid(`${path}: a PCS ${wire} body needs its issuer chain (the PEM of its issuer-chain header): give it with --issuer-chain FILE`);
    return [{ kind: WIRE_KINDS[wire], body: text, issuerChain: o.issuerChain }];
  }
  invalid(`${path}: not a collateral directory, an archive, an export bundle, a dcap-qvl collateral JSON or a PCS body of tcbInfo, enclaveIdentity or tcbEvaluationDataNumbers`);
}

/** The export bundle of an archive: every document, by kind then key, so that two archives with the same documents export the same bytes. */
export function bundleOf(archive: CollateralArchive): string {
  return [JSON.stringify({ format: BUNDLE_FORMAT }), ...archive.all().map((a) => JSON.stringify(a.document))].join('\n') + '\n';
}
