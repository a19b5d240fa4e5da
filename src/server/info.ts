/** The verifier info record served by GET /info (service-spec "Verifier info record"). */
import { formatPcrStruct, formatUniqueId } from '../aleo/ids.js';
import { hex } from '../bytes.js';

export interface InfoRecord {
  targetUniqueId: { hexEncoded: string; base64Encoded: string; ledgerEncoded: string };
  targetPcrValues: { hexEncoded: string[]; base64Encoded: string[]; ledgerEncoded: string };
  /** The ledger program of the live check (`NAME.aleo`); null when config.json names none. */
  liveCheckProgram: string | null;
  startTimeUTC: string;
}

/** `liveCheck.contractName` as the full program name (`.aleo` appended), null when not configured. */
export function liveCheckProgramName(contractName: string | undefined): string | null {
  if (contractName === undefined || contractName === '') return null;
  return contractName.endsWith('.aleo') ? contractName : `${contractName}.aleo`;
}

/** `YYYY-MM-DD HH:MM:SS` in UTC. */
export function formatStartTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

export function buildInfoRecord(t: { uniqueId: Uint8Array; pcrs: readonly Uint8Array[] }, program: string | null, startMs: number): InfoRecord {
  return {
    targetUniqueId: { hexEncoded: hex(t.uniqueId), base64Encoded: b64(t.uniqueId), ledgerEncoded: formatUniqueId(t.uniqueId) },
    targetPcrValues: { hexEncoded: t.pcrs.map(hex), base64Encoded: t.pcrs.map(b64), ledgerEncoded: formatPcrStruct(t.pcrs) },
    liveCheckProgram: program,
    startTimeUTC: formatStartTime(startMs),
  };
}
