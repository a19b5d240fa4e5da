import { publicUrl } from '../publicUrl.js';
import { VerifierError } from '../errors.js';
import { pcrsFromLeo, uniqueIdFromLeo } from '../aleo/leoValue.js';
import { measurementLocation } from '../ledger/programs.js';
import type { EnclaveMeasurements } from './enclaveIdOutput.js';
import type { StartupCode } from './errors.js';
import { createLedgerNodeClient, ledgerPath, type LedgerNodeClient } from '../ledger/node/client.js';
import { equalBytes, hex } from '../bytes.js';

export interface LiveCheckOptions {
  /** Ledger node base URL including the network, e.g. `https://api.explorer.provable.com/v1/mainnet`. */
  apiBaseUrl: string;
  /**
   * Oracle program; `.aleo` is appended when missing. The mappings are read where the program
   * registry (src/ledger/programs.ts) says the program keeps them: its data program for era 4
   * (`veru_oracle_interface_v5.aleo` → `veru_oracle_data_v5.aleo`, SGX only: no PCR mapping).
   */
  contractName: string;
  /** Mapping holding the SGX unique ID at key `0u8` (`sgx_unique_id`). */
  uniqueIdMapping: string;
  /** Mapping holding the Nitro PCR0–2 at key `0u8` (`nitro_pcr_values`). */
  pcrValuesMapping: string;
  /** Time limit of one request. */
  timeoutMs: number;
  /** Target measurements the ledger must hold. */
  expected: EnclaveMeasurements;
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
  fetchImpl?: typeof fetch;
}

const MAPPING_KEY = '0u8';

function fail(code: StartupCode, message: string, cause?: unknown): never {
  throw new VerifierError<StartupCode>(code, message, cause === undefined ? undefined : { cause });
}



function checkTargets(expected: EnclaveMeasurements): void {
  if (expected.uniqueId.length !== 32) {
    fail('LIVECHECK_BAD_TARGET', `liveCheck: the target unique ID has ${expected.uniqueId.length} bytes, expected 32`);
  }
  if (expected.pcrs.length !== 3) {
    fail('LIVECHECK_BAD_TARGET', `liveCheck: ${expected.pcrs.length} target PCR values given, expected 3`);
  }
  expected.pcrs.forEach((p, i) => {
    if (p.length !== 48) fail('LIVECHECK_BAD_TARGET', `liveCheck: the target PCR${i} has ${p.length} bytes, expected 48`);
  });
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
 * Startup live check: reads the unique ID and the PCR values the ledger program stores at key
 * `0u8` and requires them to equal the target measurements. Returns the ledger's values (no PCRs
 * for a program that holds none).
 */
export async function liveCheck(opts: LiveCheckOptions): Promise<EnclaveMeasurements> {
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
  });

  const uniqueId = await readMapping(client, program, opts.uniqueIdMapping, uniqueIdFromLeo);
  // A program attesting SGX only holds no PCR mapping: nothing to compare there.
  const pcrs = measurements.includes('pcrs') ? await readMapping(client, program, opts.pcrValuesMapping, pcrsFromLeo) : [];

  const mismatches: string[] = [];
  if (!equalBytes(uniqueId, opts.expected.uniqueId)) {
    mismatches.push(
      `liveCheck: ${opts.uniqueIdMapping}[${MAPPING_KEY}] on ${program} is ${hex(uniqueId)} but the target unique ID is ${hex(opts.expected.uniqueId)}`,
    );
  }
  pcrs.forEach((pcr, i) => {
    const target = opts.expected.pcrs[i]!;
    if (!equalBytes(pcr, target)) {
      mismatches.push(
        `liveCheck: ${opts.pcrValuesMapping}[${MAPPING_KEY}] on ${program} has PCR${i} ${hex(pcr)} but the target PCR${i} is ${hex(target)}`,
      );
    }
  });
  if (mismatches.length > 0) fail('LIVECHECK_MISMATCH', mismatches.join('\n'));
  return { uniqueId, pcrs };
}
