/**
 * Notarization backend info records (`GET /info`). The wire uses `reportType` "sgx"/"nitro" and an
 * `aleo` sub-object (the spec's `typeA`/`typeB` and `ledger`); both spellings are accepted and
 * exposed as typed records with `kind` typeA/typeB and `ledger`. Measurements are cross-checked
 * against their ledger struct texts.
 */
import { pcrsFromLeo, uniqueIdFromLeo } from '../aleo/leoValue.js';
import { ClientError } from './errors.js';

export interface TypeAInfoRecord {
  kind: 'typeA';
  /** Wire value of reportType (`sgx`, or `typeA` as the spec writes it). */
  reportType: string;
  enclaveUrl: string;
  signerPubKey: string;
  info: {
    securityVersion: number;
    debug: boolean;
    uniqueId: string;
    signerId: string;
    productId: string;
    tcbStatus: number;
    ledgerProductId?: string;
    ledger: { uniqueId: string; signerId: string; productId: string };
  };
  /** MRENCLAVE bytes (the verifier's `uniqueIdTarget`). */
  uniqueId: Uint8Array;
}

export interface TypeBDocument {
  moduleID: string;
  timestamp: number;
  digest: string;
  pcrs: Record<string, string>;
  certificate: string;
  cabundle: string[];
  userData: string | null;
  nonce: string | null;
}

export interface TypeBInfoRecord {
  kind: 'typeB';
  reportType: string;
  enclaveUrl: string;
  signerPubKey: string;
  info: {
    document: TypeBDocument;
    protectedCose: string;
    signature: string;
    ledger: { pcrs: string; userData: string };
  };
  /** PCR0, PCR1, PCR2 bytes (the verifier's `pcrValuesTarget`). */
  pcrValues: [Uint8Array, Uint8Array, Uint8Array];
}

export type NotarizerInfoRecord = TypeAInfoRecord | TypeBInfoRecord;

function bad(where: string, msg: string): never {
  throw new ClientError('INFO_INVALID', `info record from ${where}: ${msg}`);
}

function obj(v: unknown, where: string, field: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) bad(where, `${field} must be an object`);
  return v as Record<string, unknown>;
}
function str(o: Record<string, unknown>, k: string, where: string, field = k): string {
  const v = o[k];
  if (typeof v !== 'string') bad(where, `${field} must be a string`);
  return v;
}
function num(o: Record<string, unknown>, k: string, where: string, field = k): number {
  const v = o[k];
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) bad(where, `${field} must be an integer`);
  return v;
}
function b64(o: Record<string, unknown>, k: string, len: number | undefined, where: string, field: string): Uint8Array {
  const s = str(o, k, where, field);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 !== 0) bad(where, `${field} is not base64`);
  const b = Uint8Array.from(Buffer.from(s, 'base64'));
  if (len !== undefined && b.length !== len) bad(where, `${field} must be ${len} bytes, got ${b.length}`);
  return b;
}
const U128_TEXT = /^\d{1,39}u128$/;

function eq(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Validates one `/info` answer; `enclaveUrl` is the notarizer it came from. */
export function parseNotarizerInfo(body: unknown, enclaveUrl: string): NotarizerInfoRecord {
  const where = enclaveUrl;
  const root = obj(body, where, 'body');
  const reportType = str(root, 'reportType', where);
  const signerPubKey = str(root, 'signerPubKey', where);
  if (!/^aleo1[02-9ac-hj-np-z]{58}$/.test(signerPubKey)) bad(where, 'signerPubKey is not an Aleo address');
  const info = obj(root.info, where, 'info');
  const ledgerRaw = obj(info.aleo ?? info.ledger, where, 'info.aleo');

  if (reportType === 'sgx' || reportType === 'typeA') {
    const uniqueId = b64(info, 'uniqueId', 32, where, 'info.uniqueId');
    b64(info, 'signerId', 32, where, 'info.signerId');
    b64(info, 'productId', 16, where, 'info.productId');
    if (typeof info.debug !== 'boolean') bad(where, 'info.debug must be a boolean');
    const ledger = {
      uniqueId: str(ledgerRaw, 'uniqueId', where, 'info.aleo.uniqueId'),
      signerId: str(ledgerRaw, 'signerId', where, 'info.aleo.signerId'),
      productId: str(ledgerRaw, 'productId', where, 'info.aleo.productId'),
    };
    let fromLedger: Uint8Array;
    try {
      fromLedger = uniqueIdFromLeo(ledger.uniqueId);
      uniqueIdFromLeo(ledger.signerId);
    } catch (e) {
      bad(where, `info.aleo ids are not ledger structs: ${(e as Error).message}`);
    }
    if (!eq(fromLedger, uniqueId)) bad(where, 'info.aleo.uniqueId does not encode info.uniqueId');
    if (!U128_TEXT.test(ledger.productId)) bad(where, 'info.aleo.productId is not a u128 value');
    const rec: TypeAInfoRecord = {
      kind: 'typeA',
      reportType,
      enclaveUrl,
      signerPubKey,
      info: {
        securityVersion: num(info, 'securityVersion', where, 'info.securityVersion'),
        debug: info.debug,
        uniqueId: info.uniqueId as string,
        signerId: info.signerId as string,
        productId: info.productId as string,
        tcbStatus: num(info, 'tcbStatus', where, 'info.tcbStatus'),
        ledger,
      },
      uniqueId,
    };
    if (typeof info.ledgerProductId === 'string') rec.info.ledgerProductId = info.ledgerProductId;
    return rec;
  }

  if (reportType === 'nitro' || reportType === 'typeB') {
    const d = obj(info.document, where, 'info.document');
    const pcrsObj = obj(d.pcrs, where, 'info.document.pcrs');
    const pcrs: Record<string, string> = {};
    const values: Uint8Array[] = [];
    for (let i = 0; i < 16; i++) {
      const v = b64(pcrsObj, String(i), undefined, where, `info.document.pcrs["${i}"]`);
      if (v.length !== 32 && v.length !== 48 && v.length !== 64) bad(where, `info.document.pcrs["${i}"] has ${v.length} bytes`);
      pcrs[String(i)] = pcrsObj[String(i)] as string;
      values.push(v);
    }
    const [p0, p1, p2] = values as [Uint8Array, Uint8Array, Uint8Array];
    if (p0.length !== 48 || p1.length !== 48 || p2.length !== 48) bad(where, 'PCR0–2 must be 48 bytes (SHA384)');
    const cab = d.cabundle;
    if (!Array.isArray(cab) || !cab.every((c) => typeof c === 'string')) bad(where, 'info.document.cabundle must be an array of strings');
    const nullableStr = (k: string): string | null => {
      const v = d[k];
      if (v === null || v === undefined) return null;
      if (typeof v !== 'string') bad(where, `info.document.${k} must be a string or null`);
      return v;
    };
    const ledger = { pcrs: str(ledgerRaw, 'pcrs', where, 'info.aleo.pcrs'), userData: str(ledgerRaw, 'userData', where, 'info.aleo.userData') };
    let fromLedger: Uint8Array[];
    try {
      fromLedger = pcrsFromLeo(ledger.pcrs);
    } catch (e) {
      bad(where, `info.aleo.pcrs is not a ledger PCR struct: ${(e as Error).message}`);
    }
    if (!fromLedger.every((p, i) => eq(p, values[i] as Uint8Array))) bad(where, 'info.aleo.pcrs does not encode info.document.pcrs 0–2');
    return {
      kind: 'typeB',
      reportType,
      enclaveUrl,
      signerPubKey,
      info: {
        document: {
          moduleID: str(d, 'moduleID', where, 'info.document.moduleID'),
          timestamp: num(d, 'timestamp', where, 'info.document.timestamp'),
          digest: str(d, 'digest', where, 'info.document.digest'),
          pcrs,
          certificate: str(d, 'certificate', where, 'info.document.certificate'),
          cabundle: cab as string[],
          userData: nullableStr('userData'),
          nonce: nullableStr('nonce'),
        },
        protectedCose: str(info, 'protectedCose', where, 'info.protectedCose'),
        signature: str(info, 'signature', where, 'info.signature'),
        ledger,
      },
      pcrValues: [p0, p1, p2],
    };
  }
  bad(where, `unknown reportType ${JSON.stringify(reportType)} (expected sgx or nitro)`);
}

/** The verifier's targets (`uniqueIdTarget`, `pcrValuesTarget`, base64) from info records. */
export function targetsFromInfo(records: readonly NotarizerInfoRecord[]): { uniqueIdTarget?: string; pcrValuesTarget?: string[] } {
  const out: { uniqueIdTarget?: string; pcrValuesTarget?: string[] } = {};
  for (const r of records) {
    if (r.kind === 'typeA') out.uniqueIdTarget = Buffer.from(r.uniqueId).toString('base64');
    else out.pcrValuesTarget = r.pcrValues.map((p) => Buffer.from(p).toString('base64'));
  }
  return out;
}
