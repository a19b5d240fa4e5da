/**
 * Notarization backend info records (`GET /info`). The wire uses `reportType` "sgx"/"nitro" and an
 * `aleo` sub-object (the spec's `typeA`/`typeB` and `ledger`); both spellings are accepted and
 * exposed as typed records with `kind` (the report kind's id) and `ledger`. Each kind reads its
 * part of the record (its `notarizerInfo`, src/verify/kinds), cross-checking its measurements
 * against their ledger struct texts.
 */
import { isReportType, kindOfWireName, reportKind, REPORT_KINDS, WIRE_REPORT_TYPES, type NotarizerInfoOf, type InfoReader } from '../verify/kinds/index.js';
import { ClientError } from './errors.js';

export type { TypeAInfoRecord } from '../verify/kinds/typeA/notarizerInfo.js';
export type { TypeBDocument, TypeBInfoRecord } from '../verify/kinds/typeB/notarizerInfo.js';

type Kinds = (typeof REPORT_KINDS)[number];
type RecordOf<K extends Kinds> = K extends Kinds
  ? {
      kind: K['id'];
      /** Wire value of reportType (the kind's wire name, or its id as the spec writes it). */
      reportType: string;
      enclaveUrl: string;
      signerPubKey: string;
    } & NotarizerInfoOf<K>
  : never;

/** One notarizer's info record: the common fields and its kind's part. */
export type NotarizerInfoRecord = RecordOf<Kinds>;

function reader(where: string): InfoReader {
  const bad = (msg: string): never => {
    throw new ClientError('INFO_INVALID', `info record from ${where}: ${msg}`);
  };
  const str = (o: Record<string, unknown>, k: string, field = k): string => {
    const v = o[k];
    if (typeof v !== 'string') bad(`${field} must be a string`);
    return v as string;
  };
  return {
    bad,
    obj(v, field) {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) bad(`${field} must be an object`);
      return v as Record<string, unknown>;
    },
    str,
    num(o, k, field = k) {
      const v = o[k];
      if (typeof v !== 'number' || !Number.isSafeInteger(v)) bad(`${field} must be an integer`);
      return v as number;
    },
    b64(o, k, len, field) {
      const s = str(o, k, field);
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 !== 0) bad(`${field} is not base64`);
      const b = Uint8Array.from(Buffer.from(s, 'base64'));
      if (len !== undefined && b.length !== len) bad(`${field} must be ${len} bytes, got ${b.length}`);
      return b;
    },
  };
}

/** Validates one `/info` answer; `enclaveUrl` is the notarizer it came from. */
export function parseNotarizerInfo(body: unknown, enclaveUrl: string): NotarizerInfoRecord {
  const r: InfoReader = reader(enclaveUrl);
  const root = r.obj(body, 'body');
  const reportType = r.str(root, 'reportType');
  const signerPubKey = r.str(root, 'signerPubKey');
  if (!/^aleo1[02-9ac-hj-np-z]{58}$/.test(signerPubKey)) r.bad('signerPubKey is not an Aleo address');
  const info = r.obj(root.info, 'info');
  const ledgerRaw = r.obj(info.aleo ?? info.ledger, 'info.aleo');
  const kind = kindOfWireName(reportType) ?? (isReportType(reportType) ? reportKind(reportType) : undefined);
  if (!kind) r.bad(`unknown reportType ${JSON.stringify(reportType)} (expected ${WIRE_REPORT_TYPES.join(' or ')})`);
  return { kind: kind.id, reportType, enclaveUrl, signerPubKey, ...kind.notarizerInfo.read(info, ledgerRaw, r) } as NotarizerInfoRecord;
}

/** The verifier's targets (each kind's config key: `uniqueIdTarget`, `pcrValuesTarget`, base64) from info records. */
export function targetsFromInfo(records: readonly NotarizerInfoRecord[]): Partial<Record<string, string | string[]>> {
  const out: Partial<Record<string, string | string[]>> = {};
  for (const rec of records) {
    const kind = reportKind(rec.kind);
    out[kind.target.configKey] = kind.target.toConfig(kind.notarizerInfo.target(rec));
  }
  return out;
}
