/**
 * Reading a snarkOS ledger node, shared by `oracle-verifier reverify` and the server's ledger
 * watcher: blocks [start, end) (`GET {base}/blocks?start&end`, end exclusive, ≤ 50 per call, each
 * answer checked to hold exactly those heights in order, so a node answering another range is
 * caught), the latest height, and one transaction by id. Every HTTP attempt, retries included,
 * takes a slot of the rate limiter (the wait for it is not part of the attempt's timeout);
 * retries, timeouts and 429 Retry-After are the client's (src/ledger/node/client.ts).
 */
import { publicUrl } from '../../publicUrl.js';
import { VerifierError } from '../../errors.js';
import { createLedgerNodeClient, ledgerPath, type LedgerNodeClient } from './client.js';
import { RateLimiter } from '../../rateLimit.js';
import type { LedgerNodeCode } from './errors.js';

export const MAX_BLOCKS_PER_CALL = 50;

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const fail = (code: LedgerNodeCode, message: string): never => {
  throw new VerifierError<LedgerNodeCode>(code, message);
};

/** Height and transactions of one block as served by `/blocks`. */
export function blockOf(b: unknown): { height: number; transactions: unknown[] } {
  if (!isObj(b) || !isObj(b.header) || !isObj(b.header.metadata) || typeof b.header.metadata.height !== 'number') {
    return fail('LEDGER_NODE_BAD_BLOCKS', 'ledger node: a block lacks header.metadata.height');
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
  /** Headers of every request (the node's API key). */
  headers?: Record<string, string>;
  /**
   * A daily request budget (src/requestBudget.ts): every HTTP attempt takes one of it before its
   * rate-limit slot, retries and rate-limited attempts included.
   */
  budget?: { acquire(): Promise<void> };
  /** Abandons every request (the server is shutting down). */
  signal?: AbortSignal;
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
  const budget = o.budget;
  // Every HTTP attempt, retries included, takes a rate-limit slot; its timeout starts once it has one.
  const client = createLedgerNodeClient({
    baseUrl: o.baseUrl,
    timeoutMs: o.timeoutMs,
    retries: o.retries,
    backoffMs: o.backoffMs,
    acquire: budget
      ? async () => {
          await budget.acquire();
          await limiter.acquire();
        }
      : () => limiter.acquire(),
    ...(o.fetchImpl ? { fetchImpl: o.fetchImpl } : {}),
    ...(o.headers ? { headers: o.headers } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
  });
  return {
    client,
    async fetchRange(start, end) {
      if (end - start > MAX_BLOCKS_PER_CALL || end <= start) throw new Error(`bad block range ${start}..${end}`);
      const v = await client.getJson(`/blocks?start=${start}&end=${end}`);
      if (!Array.isArray(v)) fail('LEDGER_NODE_BAD_BLOCKS', `ledger node: /blocks?start=${start}&end=${end} did not answer a JSON array`);
      const blocks = (v as unknown[]).map(blockOf);
      if (blocks.length !== end - start || blocks.some((b, i) => b.height !== start + i)) {
        fail('LEDGER_NODE_BAD_BLOCKS', `ledger node: /blocks?start=${start}&end=${end} answered heights [${blocks.map((b) => b.height).join(', ')}], expected ${start}..${end - 1}`);
      }
      return blocks;
    },
    async latestHeight() {
      const v = await client.getJson('/block/height/latest');
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) fail('LEDGER_NODE_BAD_BLOCKS', `ledger node: /block/height/latest answered ${JSON.stringify(v)}`);
      return v as number;
    },
  };
}

/** How snarkOS answers for an unknown transaction: 404, or (older nodes) 500 naming it missing. */
const isUnknownTransaction = (status: number, body: string): boolean =>
  status === 404 || (status >= 400 && /missing transaction|transaction .*not found|does not exist/i.test(body));

/**
 * One transaction by id with its block height: `/transaction/{id}?metadata=true` answers
 * `{ transaction, block_hash, block_height }` on recent nodes; a node answering the bare
 * transaction is asked for its block (`/find/blockHash/{id}`, then `/height/{hash}`).
 * LEDGER_TX_NOT_FOUND when the node does not know it.
 */
export async function fetchTransaction(client: LedgerNodeClient, id: string): Promise<{ transaction: unknown; blockHeight: number }> {
  const v = await client.getJson(`${ledgerPath('transaction', id)}?metadata=true`, { absentWhen: isUnknownTransaction });
  if (v === undefined) return fail('LEDGER_TX_NOT_FOUND', `ledger node: transaction ${id} is unknown to ${publicUrl(client.baseUrl)}`);
  if (!isObj(v)) return fail('LEDGER_NODE_BAD_TRANSACTION', `ledger node: /transaction/${id} did not answer a JSON object`);
  const tx = isObj(v.transaction) ? v.transaction : v;
  if (tx.id !== id || typeof tx.type !== 'string') {
    return fail('LEDGER_NODE_BAD_TRANSACTION', `ledger node: /transaction/${id} answered ${typeof tx.id === 'string' ? `transaction ${tx.id}` : 'no transaction id'}`);
  }
  let h = v.block_height;
  if (h === undefined) {
    const hash = await client.getJson(ledgerPath('find', 'blockHash', id));
    if (typeof hash !== 'string' || !/^ab1[02-9ac-hj-np-z]+$/.test(hash)) return fail('LEDGER_NODE_BAD_TRANSACTION', `ledger node: /find/blockHash/${id} answered ${JSON.stringify(hash)?.slice(0, 100)}`);
    h = await client.getJson(ledgerPath('height', hash));
  }
  if (typeof h !== 'number' || !Number.isInteger(h) || h < 0) return fail('LEDGER_NODE_BAD_TRANSACTION', `ledger node: no valid block height for transaction ${id} (${JSON.stringify(h)})`);
  return { transaction: v, blockHeight: h };
}

/**
 * The value of `mapping[key]` in `program` (`GET {base}/program/{id}/mapping/{name}/{key}`, the key a
 * Leo literal such as `123u128`): the Leo text of the value, or null when the key is absent (the
 * node answers JSON null). LEDGER_NODE_BAD_MAPPING_VALUE when it answers anything else.
 */
export async function fetchMappingValue(client: LedgerNodeClient, program: string, mapping: string, key: string): Promise<string | null> {
  const v = await client.getJson(ledgerPath('program', program, 'mapping', mapping, key));
  if (v === null || typeof v === 'string') return v;
  return fail('LEDGER_NODE_BAD_MAPPING_VALUE', `ledger node: ${program}/${mapping}[${key}] answered ${JSON.stringify(v)?.slice(0, 100)}, not a Leo value (a JSON string) or null`);
}
