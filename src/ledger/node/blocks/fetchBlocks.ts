/**
 * Reading a snarkOS ledger node, shared by `oracle-verifier reverify` and the server's ledger
 * watcher: the transactions of blocks [start, end), the latest height, and one transaction by id.
 *
 * Blocks come from one of two routes (the block source), chosen once per scanner:
 * - `GET {base}/blocks/transactions?start&end` (newer snarkOS, ≤ 160 blocks per call): one array of
 *   confirmed transactions per block, in block order, without the authority. It carries no
 *   heights: element i is the node's answer for height start + i, so the count is checked
 *   (LEDGER_NODE_BLOCK_COUNT) and the heights are the positions. No block timestamp either.
 * - `GET {base}/blocks?start&end` (every snarkOS, ≤ 50 per call): whole blocks, read by the
 *   structural reader (./blocksBody.ts) without building the authority; each answer is checked to
 *   hold exactly the heights asked for, in order (LEDGER_NODE_BAD_BLOCKS naming the height).
 * `auto` (the default) asks `/blocks/transactions?start=0&end=0` once: `[]` means served; 404 or
 * 405 (a v1 prefix turns them into a 500 "… (HTTP 404)", or on older nodes the bare
 * "Failed to convert error") means not served; anything else is an error of the call, not an
 * answer, and detection is tried again by the next call; so is a detected route whose read fails
 * (after the client's retries), so that one wrong probe answer is not kept. Every HTTP attempt, retries included,
 * takes a slot of the rate limiter (the wait for it is not part of the attempt's timeout);
 * retries, timeouts and 429 Retry-After are the client's (src/ledger/node/client.ts).
 */
import { isAscii } from 'node:buffer';
import { publicUrl } from '../../../upstream/publicUrl.js';
import { VerifierError } from '../../../errors.js';
import { createLedgerNodeClient, ledgerPath, shownValue, type LedgerNodeClient } from '../client.js';
import { RateLimiter } from '../../../rateLimit.js';
import type { LedgerNodeCode } from '../errors.js';
import { blocksReading } from './blocksBody.js';

export const MAX_BLOCKS_PER_CALL = 50;
/** snarkOS's MAX_BLOCK_TRANSACTIONS_RANGE: blocks per `/blocks/transactions` call. */
export const MAX_TRANSACTION_BLOCKS_PER_CALL = 160;

export const BLOCK_SOURCE_KINDS = ['blocks', 'transactions'] as const;
/** Which route blocks are read from. */
export type BlockSourceKind = (typeof BLOCK_SOURCE_KINDS)[number];
/** The choice: a route, or `auto` (the transactions route when the node serves it). */
export type BlockSourceChoice = BlockSourceKind | 'auto';
export const BLOCK_SOURCE_CHOICES = ['auto', ...BLOCK_SOURCE_KINDS] as const;

/** Blocks one call of the route serves. */
export const blocksPerCall = (kind: BlockSourceKind): number => (kind === 'transactions' ? MAX_TRANSACTION_BLOCKS_PER_CALL : MAX_BLOCKS_PER_CALL);
/** The route as shown (summary, status). */
export const blockSourceRoute = (kind: BlockSourceKind): string => (kind === 'transactions' ? '/blocks/transactions' : '/blocks');

/** One block as the scan reads it; `timestamp` only from `/blocks` (the transactions route has none). */
export interface ScannedBlock {
  height: number;
  timestamp?: number;
  transactions: unknown[];
}

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
  /** More values never shown in messages (the node's JWT, sent by the listing client, which the node may echo in any answer). */
  secrets?: readonly string[];
  /**
   * A daily request budget (src/requestBudget.ts): every HTTP attempt takes one of it before its
   * rate-limit slot, retries and rate-limited attempts included.
   */
  budget?: { acquire(): Promise<void> };
  /** Abandons every request (the server is shutting down). */
  signal?: AbortSignal;
  fetchImpl?: typeof fetch;
  /** The block source: a route, or `auto` (default) to detect whether the node serves `/blocks/transactions`. */
  blockSource?: BlockSourceChoice;
}

export interface BlockScanner {
  client: LedgerNodeClient;
  /**
   * Blocks [start, end), any length: cut into calls of the block source's size, fetched one after
   * the other, each checked to be exactly its heights in order.
   */
  fetchRange(start: number, end: number): Promise<ScannedBlock[]>;
  latestHeight(): Promise<number>;
  /** The route blocks are read from (detected by the first call under `auto`, then kept). */
  blockSource(): Promise<BlockSourceKind>;
  /** The block source once known (undefined before the detection). */
  readonly knownBlockSource: BlockSourceKind | undefined;
}

/** A probe answer meaning "no such route": 404/405, or their v1 form (a 500 naming them, or old nodes' bare text). */
export const isRouteAbsent = (status: number, body: string): boolean =>
  status === 404 || status === 405 || (status === 500 && /(\(HTTP 40[45]\)|^Failed to convert error)\s*$/.test(body.trim()));

export function createBlockScanner(o: NodeScanOptions): BlockScanner {
  const limiter = new RateLimiter(o.rps);
  const budget = o.budget;
  const reading = blocksReading();
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
    ...(o.secrets ? { secrets: o.secrets } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
  });
  const choice = o.blockSource ?? 'auto';
  let known: BlockSourceKind | undefined = choice === 'auto' ? undefined : choice;
  let detecting: Promise<BlockSourceKind> | undefined;
  const detect = async (): Promise<BlockSourceKind> => {
    const v = await client.getJson('/blocks/transactions?start=0&end=0', { absentWhen: isRouteAbsent });
    if (v === undefined) return 'blocks';
    if (Array.isArray(v) && v.length === 0) return 'transactions';
    return fail('LEDGER_NODE_MALFORMED_BLOCKS', `ledger node: /blocks/transactions?start=0&end=0 answered ${shownValue(client, v)}, not [] (served) nor a 404 (not served)`);
  };
  const blockSource = (): Promise<BlockSourceKind> => {
    if (known) return Promise.resolve(known);
    // One detection at a time; a failed one is tried again by the next caller.
    detecting ??= detect().then(
      (k) => (known = k),
      (e: unknown) => {
        detecting = undefined;
        throw e;
      },
    );
    return detecting;
  };
  const oneCall = async (kind: BlockSourceKind, start: number, end: number): Promise<ScannedBlock[]> => {
    if (kind === 'blocks') {
      const path = `/blocks?start=${start}&end=${end}`;
      // Read while the bytes arrive, and while the whole body is held (its buffer then reused for the next range's body).
      const r = reading(start);
      const blocks = client.readBytes
        ? await client.readBytes(path, (bytes, attempt) => r.read(bytes, attempt), r.arrived?.bind(r))
        : r.read(await client.getBytes(path), 0);
      checkHeights(blocks.map((b) => b.height), start, end, path);
      return blocks;
    }
    const path = `/blocks/transactions?start=${start}&end=${end}`;
    // Parsed while the body is held, its buffer then reused too: a new buffer per answer would be
    // garbage until the next scavenge, tens of MiB of the audit's RSS (malloc'd outside the heap).
    const parse = (body: Buffer): unknown => {
      try {
        return JSON.parse(bodyText(body));
      } catch (e) {
        return fail('LEDGER_NODE_MALFORMED_BLOCKS', `ledger node: ${path} answered a body that is not JSON (${(e as Error).message}; ${body.length} bytes), heights ${start}..${end - 1}`);
      }
    };
    const v = client.readBytes ? await client.readBytes(path, parse) : parse(await client.getBytes(path));
    return transactionsOfBlocks(v, start, end, path);
  };
  return {
    client,
    blockSource,
    get knownBlockSource() {
      return known;
    },
    async fetchRange(start, end) {
      if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end <= start) throw new Error(`bad block range ${start}..${end}`);
      const kind = await blockSource();
      const per = blocksPerCall(kind);
      const out: ScannedBlock[] = [];
      try {
        for (let s = start; s < end; s += per) out.push(...(await oneCall(kind, s, Math.min(end, s + per))));
      } catch (e) {
        // A route detected under `auto` that fails (a wrong probe answer, a node replaced or
        // reconfigured behind the same URL) is detected again by the next call, not kept for good.
        if (choice === 'auto' && known === kind) {
          known = undefined;
          detecting = undefined;
        }
        throw e;
      }
      return out;
    },
    async latestHeight() {
      const v = await client.getJson('/block/height/latest');
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) fail('LEDGER_NODE_BAD_BLOCKS', `ledger node: /block/height/latest answered ${shownValue(client, v)}`);
      return v as number;
    },
  };
}

/**
 * The text of a body: an ASCII body (every snarkOS answer in practice: ids, Leo values, bech32) is
 * copied byte for byte (latin1, the same string as its UTF-8 decoding), any other is decoded as UTF-8.
 */
export const bodyText = (body: Buffer): string => (isAscii(body) ? body.toString('latin1') : body.toString('utf8'));

/**
 * The blocks of a `/blocks/transactions` answer: an array of one array of confirmed transactions
 * per block, in block order (snarkOS get_block_transactions_range); element i is height start + i.
 */
export function transactionsOfBlocks(v: unknown, start: number, end: number, what: string): ScannedBlock[] {
  if (!Array.isArray(v)) return fail('LEDGER_NODE_MALFORMED_BLOCKS', `ledger node: ${what} did not answer a JSON array`);
  if (v.length !== end - start) {
    return fail(
      'LEDGER_NODE_BLOCK_COUNT',
      `ledger node: ${what} answered the transactions of ${v.length} blocks for the ${end - start} heights ${start}..${end - 1} (${v.length < end - start ? `height ${start + v.length} and after missing` : 'more blocks than asked'}); its elements carry no height, so none of them can be placed`,
    );
  }
  return v.map((txs, i) => {
    if (!Array.isArray(txs)) return fail('LEDGER_NODE_MALFORMED_BLOCKS', `ledger node: ${what}: the element for height ${start + i} is not an array of transactions`);
    return { height: start + i, transactions: txs };
  });
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
/**
 * Largest answer read for one transaction: snarkVM caps a transaction at 128,000 bytes
 * (`Network::MAX_TRANSACTION_SIZE`, console/network/src/lib.rs); its JSON, with hex and bech32
 * encodings and the metadata, is a few times that. A node answering more is not read further.
 */
export const TRANSACTION_BODY_BYTES = 4 * 1024 * 1024;
/** Largest answer read for a block hash, a height or a mapping value (some hundred bytes). */
const SMALL_BODY_BYTES = 64 * 1024;

export async function fetchTransaction(client: LedgerNodeClient, id: string): Promise<{ transaction: unknown; blockHeight: number }> {
  const v = await client.getJson(`${ledgerPath('transaction', id)}?metadata=true`, { absentWhen: isUnknownTransaction, maxBodyBytes: TRANSACTION_BODY_BYTES });
  if (v === undefined) return fail('LEDGER_TX_NOT_FOUND', `ledger node: transaction ${id} is unknown to ${publicUrl(client.baseUrl)}`);
  if (!isObj(v)) return fail('LEDGER_NODE_BAD_TRANSACTION', `ledger node: /transaction/${id} did not answer a JSON object`);
  const tx = isObj(v.transaction) ? v.transaction : v;
  if (tx.id !== id || typeof tx.type !== 'string') {
    return fail('LEDGER_NODE_BAD_TRANSACTION', `ledger node: /transaction/${id} answered ${typeof tx.id === 'string' ? `transaction ${shownValue(client, tx.id)}` : 'no transaction id'}`);
  }
  let h = v.block_height;
  if (h === undefined) {
    const hash = await client.getJson(ledgerPath('find', 'blockHash', id), { maxBodyBytes: SMALL_BODY_BYTES });
    if (typeof hash !== 'string' || !/^ab1[02-9ac-hj-np-z]+$/.test(hash)) return fail('LEDGER_NODE_BAD_TRANSACTION', `ledger node: /find/blockHash/${id} answered ${shownValue(client, hash)}`);
    h = await client.getJson(ledgerPath('height', hash), { maxBodyBytes: SMALL_BODY_BYTES });
  }
  if (typeof h !== 'number' || !Number.isInteger(h) || h < 0) return fail('LEDGER_NODE_BAD_TRANSACTION', `ledger node: no valid block height for transaction ${id} (${shownValue(client, h)})`);
  return { transaction: v, blockHeight: h };
}

/**
 * The value of `mapping[key]` in `program` (`GET {base}/program/{id}/mapping/{name}/{key}`, the key a
 * Leo literal such as `123u128`): the Leo text of the value, or null when the key is absent (the
 * node answers JSON null). LEDGER_NODE_BAD_MAPPING_VALUE when it answers anything else.
 */
export async function fetchMappingValue(client: LedgerNodeClient, program: string, mapping: string, key: string): Promise<string | null> {
  const v = await client.getJson(ledgerPath('program', program, 'mapping', mapping, key), { maxBodyBytes: SMALL_BODY_BYTES });
  if (v === null || typeof v === 'string') return v;
  return fail('LEDGER_NODE_BAD_MAPPING_VALUE', `ledger node: ${program}/${mapping}[${key}] answered ${shownValue(client, v)}, not a Leo value (a JSON string) or null`);
}
