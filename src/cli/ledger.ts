/**
 * Ledger side of `reverify`: block scans through a snarkOS node (`GET {base}/blocks?start&end`,
 * end exclusive, ≤ 50 blocks per call), saved transaction JSON, and the extraction of the followed
 * oracle programs' transitions from transactions (the programs and their transitions come from the
 * registry, src/ledger/programs.ts). A transaction lists every transition it executed, those of
 * programs called by another program's transition included, so wrapped oracle calls are found too.
 */
import { createLedgerNodeClient, type LedgerNodeClient } from '../startup/ledgerNodeClient.js';
import { pcrsFromLeo, uniqueIdFromLeo } from '../ledger/leoValue.js';
import { KNOWN_PROGRAM_IDS, normaliseProgramId, oracleProgram, OWNER_INPUT, ownerKindOf, UPDATE_INPUTS, updateKindOf } from '../ledger/programs.js';
import { toFailure } from '../verify/failure.js';
import { cliError } from './errors.js';
import { RateLimiter } from './rateLimit.js';
import { canonical, type OutputRecord } from './records.js';
import { hex } from '../bytes.js';

export const MAX_BLOCKS_PER_CALL = 50;

/** One thing found on the ledger: an update to verify, or an owner record ready to write. */
export type LedgerItem =
  | { type: 'update'; base: UpdateBase; userData: string; report: string }
  | { type: 'update-malformed'; record: OutputRecord }
  | { type: 'owner'; record: OutputRecord };

export type UpdateBase = Pick<OutputRecord, 'transactionId' | 'transitionId' | 'blockHeight' | 'id' | 'program' | 'function'>;

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The programs to follow: the given names (`.aleo` optional), else all known programs. Every name
 * must be a known oracle program.
 */
export function programsToFollow(names: readonly string[] | undefined, where: string): string[] {
  if (names === undefined || names.length === 0) return [...KNOWN_PROGRAM_IDS];
  const ids = [...new Set(names.map(normaliseProgramId))];
  const unknown = ids.filter((id) => !oracleProgram(id));
  if (unknown.length) throw cliError('CLI_USAGE', `${where}: unknown oracle program ${unknown.join(', ')} (known: ${KNOWN_PROGRAM_IDS.join(', ')})`);
  return ids;
}

/**
 * The inner execute transaction of any of the shapes a node serves: a confirmed transaction
 * (`{status, type, index, transaction}`), `?metadata=true` (`{transaction, block_height}`), or the
 * bare transaction. Rejected transactions (status ≠ accepted) yield nothing.
 */
export function unwrapTransaction(v: unknown): { tx: Json; height?: number } | undefined {
  if (!isObj(v)) return undefined;
  if (typeof v.status === 'string' && v.status !== 'accepted') return undefined;
  const height = typeof v.block_height === 'number' ? v.block_height : undefined;
  const inner = isObj(v.transaction) ? v.transaction : v;
  if (!isObj(inner.execution)) return undefined;
  return height === undefined ? { tx: inner } : { tx: inner, height };
}

function publicValue(inputs: unknown, i: number): string | undefined {
  if (!Array.isArray(inputs)) return undefined;
  const x: unknown = inputs[i];
  if (!isObj(x) || x.type !== 'public' || typeof x.value !== 'string') return undefined;
  return x.value;
}


/** The followed programs' update and owner transitions of one transaction, in transition order. */
export function itemsOfTransaction(txv: unknown, programs: readonly string[], heightHint?: number): LedgerItem[] {
  const u = unwrapTransaction(txv);
  if (!u) return [];
  const height = u.height ?? heightHint;
  const transactionId = typeof u.tx.id === 'string' ? u.tx.id : undefined;
  const transitions = (u.tx.execution as Json).transitions;
  if (!Array.isArray(transitions)) return [];
  const items: LedgerItem[] = [];
  for (const t of transitions) {
    if (!isObj(t) || typeof t.program !== 'string' || !programs.includes(t.program) || typeof t.function !== 'string') continue;
    const program = t.program;
    const fn = t.function;
    const base: UpdateBase = {
      ...(transactionId !== undefined ? { transactionId } : {}),
      ...(typeof t.id === 'string' ? { transitionId: t.id } : {}),
      ...(height !== undefined ? { blockHeight: height } : {}),
      program,
      function: fn,
    };
    const kind = updateKindOf(program, fn);
    const sets = ownerKindOf(program, fn);
    if (kind !== undefined) {
      const userData = publicValue(t.inputs, UPDATE_INPUTS.userData);
      const report = publicValue(t.inputs, UPDATE_INPUTS.report);
      if (userData === undefined || report === undefined) {
        items.push({
          type: 'update-malformed',
          record: canonical({
            ...base,
            kind,
            reportValid: false,
            errorCode: 'LEDGER_TRANSITION_MALFORMED',
            errorString: `${program}/${fn}: inputs ${UPDATE_INPUTS.userData} and ${UPDATE_INPUTS.report} must be public values (report_data, report)`,
            measurements: {},
          }),
        });
      } else items.push({ type: 'update', base, userData, report });
    } else if (sets !== undefined) {
      const value = publicValue(t.inputs, OWNER_INPUT);
      const rec: OutputRecord = { ...base, kind: 'measurement' };
      try {
        if (value === undefined) throw cliError('LEDGER_TRANSITION_MALFORMED', `${program}/${fn}: input ${OWNER_INPUT} is not a public value`);
        rec.measurement = sets === 'uniqueId' ? { uniqueId: hex(uniqueIdFromLeo(value)) } : { pcrs: pcrsFromLeo(value).map(hex) };
      } catch (e) {
        const f = toFailure(e);
        rec.errorCode = f.code;
        rec.errorString = f.message;
      }
      items.push({ type: 'owner', record: canonical(rec) });
    }
  }
  return items;
}

/** Height and transactions of one block as served by `/blocks`. */
export function blockOf(b: unknown): { height: number; transactions: unknown[] } {
  if (!isObj(b) || !isObj(b.header) || !isObj(b.header.metadata) || typeof b.header.metadata.height !== 'number') {
    throw cliError('CLI_LEDGER_BAD_BLOCKS', 'ledger node: a block lacks header.metadata.height');
  }
  const txs = b.transactions;
  return { height: b.header.metadata.height, transactions: Array.isArray(txs) ? txs : [] };
}

export interface NodeScanOptions {
  baseUrl: string;
  rps: number;
  timeoutMs: number;
  retries: number;
  backoffMs: number;
  fetchImpl?: typeof fetch;
}

export interface BlockScanner {
  client: LedgerNodeClient;
  /** Blocks [start, end) (end − start ≤ 50), checked to be exactly those heights in order. */
  fetchRange(start: number, end: number): Promise<{ height: number; transactions: unknown[] }[]>;
  latestHeight(): Promise<number>;
}

export function createBlockScanner(o: NodeScanOptions): BlockScanner {
  const limiter = new RateLimiter(o.rps);
  const base = o.fetchImpl ?? fetch;
  // Every HTTP attempt, retries included, takes a rate-limit slot.
  const fetchImpl: typeof fetch = async (input, init) => {
    await limiter.acquire();
    return base(input, init);
  };
  const client = createLedgerNodeClient({ baseUrl: o.baseUrl, timeoutMs: o.timeoutMs, retries: o.retries, backoffMs: o.backoffMs, fetchImpl });
  return {
    client,
    async fetchRange(start, end) {
      if (end - start > MAX_BLOCKS_PER_CALL || end <= start) throw new Error(`bad block range ${start}..${end}`);
      const v = await client.getJson(`/blocks?start=${start}&end=${end}`);
      if (!Array.isArray(v)) throw cliError('CLI_LEDGER_BAD_BLOCKS', `ledger node: /blocks?start=${start}&end=${end} did not answer a JSON array`);
      const blocks = v.map(blockOf);
      if (blocks.length !== end - start || blocks.some((b, i) => b.height !== start + i)) {
        throw cliError('CLI_LEDGER_BAD_BLOCKS', `ledger node: /blocks?start=${start}&end=${end} answered heights [${blocks.map((b) => b.height).join(', ')}], expected ${start}..${end - 1}`);
      }
      return blocks;
    },
    async latestHeight() {
      const v = await client.getJson('/block/height/latest');
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw cliError('CLI_LEDGER_BAD_BLOCKS', `ledger node: /block/height/latest answered ${JSON.stringify(v)}`);
      return v;
    },
  };
}
