/** The verifier info record served by GET /info (service-spec "Verifier info record"). */
import { KINDS, type TargetValues } from '../verify/kinds/index.js';
import type { AcceptedBuild } from '../verify/policy.js';

export interface InfoRecord {
  /** Each kind's target under its info key (targetUniqueId, targetPcrValues): hexEncoded, base64Encoded, ledgerEncoded. */
  readonly [targetKey: string]: unknown;
  /** The ledger program of the live check (`NAME.aleo`); null when config.json names none. */
  liveCheckProgram: string | null;
  startTimeUTC: string;
  /** The oracle programs the ledger side follows; absent without a ledger node. */
  ledgerPrograms?: string[];
  /** Builds accepted beside the targets (config acceptedBuilds): kind, source and the measurement in the target's forms; absent when none. */
  acceptedBuilds?: Array<Record<string, unknown>>;
  /** Whether this server runs the ledger watcher (watch.enabled); absent when the caller does not say. */
  ledgerWatcher?: boolean;
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

export function buildInfoRecord(
  targets: TargetValues,
  program: string | null,
  startMs: number,
  ledgerPrograms?: readonly string[],
  acceptedBuilds: Readonly<Partial<Record<string, readonly AcceptedBuild[]>>> = {},
  ledgerWatcher?: boolean,
): InfoRecord {
  const builds = KINDS.flatMap((k) => (acceptedBuilds[k.id] ?? []).map((b) => ({ reportType: k.id, source: b.source, [k.target.info.key]: k.target.info.of(b.value as never) })));
  return {
    ...Object.fromEntries(KINDS.map((k) => [k.target.info.key, k.target.info.of(targets[k.id])])),
    liveCheckProgram: program,
    startTimeUTC: formatStartTime(startMs),
    ...(ledgerPrograms ? { ledgerPrograms: [...ledgerPrograms] } : {}),
    ...(builds.length ? { acceptedBuilds: builds } : {}),
    ...(ledgerWatcher !== undefined ? { ledgerWatcher } : {}),
  };
}
