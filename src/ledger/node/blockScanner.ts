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
import { blocksReader, type BlockRecord } from './blocksBody.js';

export const MAX_BLOCKS_PER_CALL = 50;

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const fail = (code: LedgerNodeCode, message: string): never => {
  throw new VerifierError<LedgerNodeCode>(code, message);
};

/**
 * Checks that `heights` are exactly start..end−1 in order; LEDGER_NODE_BAD_BLOCKS naming the first
 * that is not (missing, duplicated, out of order, outside the range, or a count that differs).
 */
export function checkHeights(heights: readonly number[], start: number, end: number, what: string): void {
  const expected = end - start;
  for (let i = 0; i < Math.min(heights.length, expected); i++) {
    const h = heights[i]!;
    if (h === start + i) continue;
    const why =
      h < start || h >= end
        ? `height ${h}, outside the range,`
        : heights.indexOf(h) < i
          ? `height ${h} a second time`
          : h > start + i
            ? `height ${h} where ${start + i} belongs (block ${start + i} missing or out of order)`
            : `height ${h} out of order`;
    fail('LEDGER_NODE_BAD_BLOCKS', `ledger node: ${what} answered ${why} at position ${i}, where height ${start + i} was expected (heights ${shownHeights(heights)}, expected ${start}..${end - 1})`);
  }
  if (heights.length !== expected) {
    const why = heights.length < expected ? `block ${start + heights.length} missing` : `${heights.length - expected} block(s) more than asked`;
    fail('LEDGER_NODE_BAD_BLOCKS', `ledger node: ${what} answered ${heights.length} blocks, ${why} (heights ${shownHeights(heights)}, expected ${start}..${end - 1})`);
  }
}

const shownHeights = (h: readonly number[]): string => (h.length > 12 ? `[${h.slice(0, 6).join(', ')}, …, ${h.slice(-3).join(', ')}]` : `[${h.join(', ')}]`);

export interface NodeScanOptions {
  baseUrl: string;
  rps: number;
  timeoutMs: number;
  retries: number;
  backoffMs: number;
  /** Headers of every request (the node's API key). */
  headers?: Record<string, string>;
  /** Abandons every request (the server is shutting down). */
  signal?: AbortSignal;
  fetchImpl?: typeof fetch;
}

export interface BlockScanner {
  client: LedgerNodeClient;
  /** Blocks [start, end) (end − start ≤ 50), checked to be exactly those heights in order. */
  fetchRange(start: number, end: number): Promise<BlockRecord[]>;
  latestHeight(): Promise<number>;
}

export function createBlockScanner(o: NodeScanOptions): BlockScanner {
  const limiter = new RateLimiter(o.rps);
  const readBlocks = blocksReader();
  // Every HTTP attempt, retries included, takes a rate-limit slot; its timeout starts once it has one.
  const client = createLedgerNodeClient({
    baseUrl: o.baseUrl,
    timeoutMs: o.timeoutMs,
    retries: o.retries,
    backoffMs: o.backoffMs,
    acquire: () => limiter.acquire(),
    ...(o.fetchImpl ? { fetchImpl: o.fetchImpl } : {}),
    ...(o.headers ? { headers: o.headers } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
  });
  return {
    client,
    async fetchRange(start, end) {
      if (end - start > MAX_BLOCKS_PER_CALL || end <= start) throw new Error(`bad block range ${start}..${end}`);
      const path = `/blocks?start=${start}&end=${end}`;
      const blocks = readBlocks(await client.getBytes(path), start);
      checkHeights(blocks.map((b) => b.height), start, end, path);
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
