/** A notarizer's GET /info record of kind typeB (`reportType` "nitro", or "typeB" as the spec writes it). */
import { pcrsFromLeo } from '../../../aleo/leoValue.js';
import { equalBytes } from '../../../bytes.js';
import type { InfoReader, KindNotarizerInfo } from '../types.js';

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

export interface TypeBInfo {
  info: {
    document: TypeBDocument;
    protectedCose: string;
    signature: string;
    ledger: { pcrs: string; userData: string };
  };
  /** PCR0, PCR1, PCR2 bytes (the verifier's `pcrValuesTarget`). */
  pcrValues: [Uint8Array, Uint8Array, Uint8Array];
}

export interface TypeBInfoRecord extends TypeBInfo {
  kind: 'typeB';
  reportType: string;
  enclaveUrl: string;
  signerPubKey: string;
}

export const typeBNotarizerInfo: KindNotarizerInfo<TypeBInfo, readonly Uint8Array[]> = {
  read(info, ledgerRaw, r: InfoReader) {
    const d = r.obj(info.document, 'info.document');
    const pcrsObj = r.obj(d.pcrs, 'info.document.pcrs');
    const pcrs: Record<string, string> = {};
    const values: Uint8Array[] = [];
    for (let i = 0; i < 16; i++) {
      const v = r.b64(pcrsObj, String(i), undefined, `info.document.pcrs["${i}"]`);
      if (v.length !== 32 && v.length !== 48 && v.length !== 64) r.bad(`info.document.pcrs["${i}"] has ${v.length} bytes`);
      pcrs[String(i)] = pcrsObj[String(i)] as string;
      values.push(v);
    }
    const [p0, p1, p2] = values as [Uint8Array, Uint8Array, Uint8Array];
    if (p0.length !== 48 || p1.length !== 48 || p2.length !== 48) r.bad('PCR0–2 must be 48 bytes (SHA384)');
    const cab = d.cabundle;
    if (!Array.isArray(cab) || !cab.every((c) => typeof c === 'string')) r.bad('info.document.cabundle must be an array of strings');
    const nullableStr = (k: string): string | null => {
      const v = d[k];
      if (v === null || v === undefined) return null;
      if (typeof v !== 'string') r.bad(`info.document.${k} must be a string or null`);
      return v;
    };
    const ledger = { pcrs: r.str(ledgerRaw, 'pcrs', 'info.aleo.pcrs'), userData: r.str(ledgerRaw, 'userData', 'info.aleo.userData') };
    let fromLedger: Uint8Array[];
    try {
      fromLedger = pcrsFromLeo(ledger.pcrs);
    } catch (e) {
      r.bad(`info.aleo.pcrs is not a ledger PCR struct: ${(e as Error).message}`);
    }
    if (!fromLedger.every((p, i) => equalBytes(p, values[i] as Uint8Array))) r.bad('info.aleo.pcrs does not encode info.document.pcrs 0–2');
    return {
      info: {
        document: {
          moduleID: r.str(d, 'moduleID', 'info.document.moduleID'),
          timestamp: r.num(d, 'timestamp', 'info.document.timestamp'),
          digest: r.str(d, 'digest', 'info.document.digest'),
          pcrs,
          certificate: r.str(d, 'certificate', 'info.document.certificate'),
          cabundle: cab as string[],
          userData: nullableStr('userData'),
          nonce: nullableStr('nonce'),
        },
        protectedCose: r.str(info, 'protectedCose', 'info.protectedCose'),
        signature: r.str(info, 'signature', 'info.signature'),
        ledger,
      },
      pcrValues: [p0, p1, p2],
    };
  },
  target: (rec) => rec.pcrValues,
};
