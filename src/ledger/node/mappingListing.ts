/**
 * Listing a whole mapping, and placing a time in the chain, from a snarkOS node one runs oneself
 * (ProvableHQ/snarkOS node/rest/src/routes.rs, lib.rs, helpers/auth.rs):
 *
 * - `GET {base}/program/{id}/mapping/{name}?all=true&metadata=true` (get_mapping_values) answers
 *   `{ "data": [[key, value], …], "height": h }`: every confirmed key-value pair of the mapping
 *   (Plaintext and Value in their Leo text), no paging, with the node's latest height read before
 *   the mapping. Without `all=true` it is a 400 ("At this time, 'all=true' must be included"). It
 *   sits behind the node's JWT middleware: `Authorization: Bearer <jwt>` (HS256 with the node's
 *   secret); none, a wrong one, an expired one is a 401 (empty body, or "Expired JSON Web Token").
 *   On the default and `/v1` paths every error is a 500 whose text ends "(HTTP n)" (older nodes:
 *   "Failed to convert error" alone); `/v2` keeps the status. A mapping the program does not have
 *   (or a program not deployed on this network) is a 500 "Unable to read mapping — Illegal
 *   operation: '…' is not initialized": it holds no key.
 * - `GET {base}/block/{h}/header` (get_block_header, no JWT): the header, whose
 *   `metadata.timestamp` (seconds) places a time in the chain by binary search over heights
 *   (block timestamps do not decrease).
 */
import { VerifierError } from '../../errors.js';
import { ledgerPath, shownValue, type LedgerNodeClient } from './client.js';
import type { LedgerNodeCode } from './errors.js';

/**
 * Largest listing body read (a whole mapping in one answer, no paging): about 600,000 oracle keys
 * as snarkOS prints them; a larger answer fails LEDGER_NODE_BAD_RESPONSE (the check: not_checked).
 */
export const MAX_LISTING_BYTES = 128 * 1024 * 1024;

export interface MappingListing {
  entries: { key: string; value: string }[];
  /** The node's latest height when it listed the mapping. */
  height?: number;
  /** The node says the mapping is not initialized (the program is not deployed on this network): no key. */
  uninitialized?: true;
}

const fail = (code: LedgerNodeCode, message: string): never => {
  throw new VerifierError<LedgerNodeCode>(code, message);
};

type Refusal = 'refused' | 'unsupported' | 'uninitialized';

/** What an error answer to the listing means, when it is one of the answers the listing expects. */
export function listingRefusal(status: number, body: string): Refusal | undefined {
  const text = body.trim();
  if (/is not initialized|does not exist/i.test(text)) return 'uninitialized';
  if (status === 401 || status === 403 || /\(HTTP 40[13]\)$/.test(text) || text === 'Failed to convert error') return 'refused';
  if (status === 404 || /\(HTTP 404\)$/.test(text)) return 'unsupported';
  return undefined;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every key-value pair of `program`'s `mapping`, with the node's height (the client must send the node's JWT). */
export async function listMapping(client: LedgerNodeClient, program: string, mapping: string): Promise<MappingListing> {
  const path = `${ledgerPath('program', program, 'mapping', mapping)}?all=true&metadata=true`;
  const where = `ledger node: GET ${ledgerPath('program', program, 'mapping', mapping)}?all=true`;
  let refusal: { kind: Refusal; status: number; body: string } | undefined;
  const v = await client.getJson(path, {
    absentWhen: (status, body) => {
      const kind = listingRefusal(status, body);
      // What the node said is shown, its credentials cut out (a node may echo the token it refused).
      if (kind) refusal = { kind, status, body: (client.redact?.(body) ?? body).trim().slice(0, 200) };
      return kind !== undefined;
    },
  });
  if (v === undefined && refusal) {
    if (refusal.kind === 'uninitialized') return { entries: [], uninitialized: true };
    const said = `status ${refusal.status}${refusal.body ? `, ${JSON.stringify(refusal.body)}` : ''}`;
    if (refusal.kind === 'refused') {
      return fail('LEDGER_NODE_LISTING_REFUSED', `${where} was refused (${said}): the route sits behind the node's JWT middleware; set LEDGER_NODE_JWT to a JWT of that node`);
    }
    return fail('LEDGER_NODE_LISTING_UNSUPPORTED', `${where}: the node does not serve the mapping listing (${said})`);
  }
  const data = isObj(v) ? v.data : v;
  const height = isObj(v) && typeof v.height === 'number' && Number.isInteger(v.height) && v.height >= 0 ? v.height : undefined;
  if (!Array.isArray(data)) return fail('LEDGER_NODE_BAD_LISTING', `${where} did not answer { data: [[key, value]…], height } (got ${shownValue(client, v)})`);
  // Every key and value as they travel on (results, messages, logs, --json): the client's
  // credentials cut out, for a node may echo the JWT it was sent in a 200 answer too.
  const redact = client.redact ?? ((t: string) => t);
  const entries = data.map((pair: unknown, i) => {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') {
      return fail('LEDGER_NODE_BAD_LISTING', `${where}: entry ${i} is ${shownValue(client, pair)}, not a [key, value] pair of Leo texts`);
    }
    return { key: redact(pair[0]), value: redact(pair[1]) };
  });
  return { entries, ...(height !== undefined ? { height } : {}) };
}

/** The timestamp (seconds) of block `height` (`/block/{h}/header`, metadata.timestamp). */
export async function blockTimestamp(client: LedgerNodeClient, height: number): Promise<number> {
  const v = await client.getJson(ledgerPath('block', String(height), 'header'));
  const t = isObj(v) && isObj(v.metadata) ? v.metadata.timestamp : undefined;
  if (typeof t !== 'number' || !Number.isFinite(t)) return fail('LEDGER_NODE_BAD_LISTING', `ledger node: /block/${height}/header has no metadata.timestamp (got ${shownValue(client, v)})`);
  return t;
}

/**
 * The first height in [lo, hi] whose block timestamp is ≥ `t` (hi + 1 when none): a binary search,
 * ⌈log2(hi − lo + 2)⌉ header reads; `cache` keeps the timestamps read (one per height) across calls.
 */
export async function firstHeightAtOrAfter(client: LedgerNodeClient, t: number, lo: number, hi: number, cache: Map<number, number> = new Map()): Promise<number> {
  const at = async (h: number): Promise<number> => {
    let ts = cache.get(h);
    if (ts === undefined) {
      ts = await blockTimestamp(client, h);
      cache.set(h, ts);
    }
    return ts;
  };
  let a = lo;
  let b = hi + 1;
  while (a < b) {
    const m = a + Math.floor((b - a) / 2);
    if ((await at(m)) >= t) b = m;
    else a = m + 1;
  }
  return a;
}
