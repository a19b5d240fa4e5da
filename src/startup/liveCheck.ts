import { publicUrl } from '../upstream/publicUrl.js';
import { VerifierError } from '../errors.js';
import { measurementLocation } from '../ledger/programs.js';
import { KINDS, type ReportType, type TargetValues } from '../verify/kinds/index.js';
import type { AcceptedBuild } from '../verify/policy.js';
import type { StartupCode } from './errors.js';
import { createLedgerNodeClient, ledgerPath, type LedgerNodeClient } from '../ledger/node/client.js';

export interface LiveCheckOptions {
  /** Ledger node base URL including the network, e.g. `https://api.explorer.provable.com/v1/mainnet`. */
  apiBaseUrl: string;
  /**
   * Oracle program; `.aleo` is appended when missing. The mappings are read where the program
   * registry (src/ledger/programs.ts) says the program keeps them: its data program for era 4
   * (`veru_oracle_interface_v5.aleo` → `veru_oracle_data_v5.aleo`, SGX only: no PCR mapping).
   */
  contractName: string;
  /** The mapping holding each kind's target at key `0u8`, by kind id (`sgx_unique_id`, `nitro_pcr_values`). */
  mappings: Readonly<Record<ReportType, string>>;
  /** Time limit of one request. */
  timeoutMs: number;
  /** Target measurements the ledger must hold, by kind id. */
  expected: TargetValues;
  /**
   * Builds accepted beside the targets (config `acceptedBuilds`), by kind id: the ledger may hold
   * one of these instead of the target (the program's owner has not moved to the target build, or
   * has moved back); `onAccepted` is told which.
   */
  accepted?: Readonly<Partial<Record<ReportType, readonly AcceptedBuild[]>>>;
  onAccepted?: (found: { kind: ReportType; target: string; program: string; mapping: string; source: string }) => void;
  /** Further attempts per request after the first (default 3). */
  retries?: number;
  /** First backoff between attempts, doubled each time (default 500 ms). */
  backoffMs?: number;
  /** Cap on one backoff / Retry-After (default 10 s). */
  maxBackoffMs?: number;
  /** Most time each query waits out the node's rate limits (default 300 s). */
  rateLimitPatienceMs?: number;
  /** Overall budget of each mapping query over all attempts (default: all timeouts plus maxBackoffMs per retry). */
  deadlineMs?: number;
  /** Headers of every request (the node's API key). */
  headers?: Record<string, string>;
  fetchImpl?: typeof fetch;
}

const MAPPING_KEY = '0u8';

function fail(code: StartupCode, message: string, cause?: unknown): never {
  throw new VerifierError<StartupCode>(code, message, cause === undefined ? undefined : { cause });
}

function checkTargets(expected: TargetValues): void {
  for (const k of KINDS) {
    const problem = k.target.ledger.shapeProblem(expected[k.id]);
    if (problem !== undefined) fail('LIVECHECK_BAD_TARGET', `liveCheck: ${problem}`);
  }
}

/** Reads `{mapping}[0u8]` of `program` and decodes the Leo struct text with `decode`. */
async function readMapping<T>(
  client: LedgerNodeClient,
  program: string,
  mapping: string,
  decode: (text: string) => T,
): Promise<T> {
  const where = `${mapping}[${MAPPING_KEY}] on ${program}`;
  const body = await client.getJson(ledgerPath('program', program, 'mapping', mapping, MAPPING_KEY));
  if (body === null) {
    fail(
      'LIVECHECK_VALUE_ABSENT',
      `liveCheck: ${where} has no value (the ledger node ${publicUrl(client.baseUrl)} answered null); check liveCheck.contractName, the network in liveCheck.apiBaseUrl, and that the program's owner has set the measurement`,
    );
  }
  if (typeof body !== 'string') {
    fail('LIVECHECK_BAD_VALUE', `liveCheck: ${where}: expected a JSON string holding Leo struct text, got ${Array.isArray(body) ? 'an array' : typeof body}`);
  }
  try {
    return decode(body);
  } catch (e) {
    return fail('LIVECHECK_BAD_VALUE', `liveCheck: ${where} is not a valid value: ${(e as Error).message}`, e);
  }
}

/**
 * Startup live check: reads each kind's target measurement the ledger program stores at key `0u8`
 * (the unique ID, the PCR values) and requires it to equal the target or one of the kind's accepted
 * builds. Returns the ledger's values by kind id (none for a kind whose measurement the program
 * does not hold).
 */
export async function liveCheck(opts: LiveCheckOptions): Promise<Partial<TargetValues>> {
  checkTargets(opts.expected);
  const { program, measurements } = measurementLocation(opts.contractName);
  const client = createLedgerNodeClient({
    baseUrl: opts.apiBaseUrl,
    timeoutMs: opts.timeoutMs,
    ...(opts.retries !== undefined && { retries: opts.retries }),
    ...(opts.backoffMs !== undefined && { backoffMs: opts.backoffMs }),
    ...(opts.maxBackoffMs !== undefined && { maxBackoffMs: opts.maxBackoffMs }),
    ...(opts.rateLimitPatienceMs !== undefined && { rateLimitPatienceMs: opts.rateLimitPatienceMs }),
    ...(opts.deadlineMs !== undefined && { deadlineMs: opts.deadlineMs }),
    ...(opts.fetchImpl !== undefined && { fetchImpl: opts.fetchImpl }),
    ...(opts.headers !== undefined && { headers: opts.headers }),
  });

  // A program attesting SGX only holds no PCR mapping: nothing to compare there.
  const held = KINDS.filter((k) => measurements.includes(k.target.ledger.name));
  const ledger: Record<string, unknown> = {};
  for (const k of held) ledger[k.id] = await readMapping(client, program, opts.mappings[k.id], (text) => k.target.ledger.fromLeo(text));

  const mismatches = held.flatMap((k) => {
    const where = `${opts.mappings[k.id]}[${MAPPING_KEY}] on ${program}`;
    const differences = k.target.ledger.differences(ledger[k.id], opts.expected[k.id]);
    if (differences.length === 0) return [];
    const builds = opts.accepted?.[k.id] ?? [];
    const build = builds.find((b) => k.target.ledger.differences(ledger[k.id], b.value).length === 0);
    if (build) {
      opts.onAccepted?.({ kind: k.id, target: k.target.configKey, program, mapping: opts.mappings[k.id], source: build.source });
      return [];
    }
    const nor = builds.length ? `, nor any of the ${builds.length} acceptedBuilds of ${k.target.configKey}` : '';
    return differences.map((d) => `liveCheck: ${where} ${d}${nor}`);
  });
  if (mismatches.length > 0) fail('LIVECHECK_MISMATCH', mismatches.join('\n'));
  return ledger as Partial<TargetValues>;
}
