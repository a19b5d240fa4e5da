/** The typeB decodedReport view (spec "decodedReport, kind typeB"): bytes as base64, PCR0–2 also as a ledger struct text. */
import { formatPcrStruct } from '../../../aleo/ids.js';
import type { ParsedTypeB } from '../../../attestation/typeB/verify.js';

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

export interface TypeBView extends Record<string, unknown> {
  moduleID: string;
  timestamp: number;
  digest: string;
  /** PCR index → base64. */
  pcrs: Record<string, string>;
  ledgerPcrs?: string;
  certificate: string;
  cabundle: string[];
  userData?: string;
  nonce?: string;
  publicKey?: string;
  protectedCose: string;
  signature: string;
}

export function typeBView(p: ParsedTypeB): TypeBView {
  const d = p.document;
  const pcrs: Record<string, string> = {};
  for (const [k, v] of [...d.pcrs.entries()].sort((a, b) => a[0] - b[0])) pcrs[String(k)] = b64(v);
  const first3 = [0, 1, 2].map((i) => d.pcrs.get(i));
  const view: Partial<TypeBView> = {
    moduleID: d.moduleId,
    timestamp: d.timestamp,
    digest: d.digest,
    pcrs,
  };
  if (first3.every((v) => v !== undefined && v.length === 48)) view.ledgerPcrs = formatPcrStruct(first3 as Uint8Array[]);
  view.certificate = b64(d.certificate);
  view.cabundle = d.cabundle.map(b64);
  if (d.userData) view.userData = b64(d.userData);
  if (d.nonce) view.nonce = b64(d.nonce);
  if (d.publicKey) view.publicKey = b64(d.publicKey);
  view.protectedCose = b64(p.protectedBytes);
  view.signature = b64(p.signature);
  return view as TypeBView;
}
