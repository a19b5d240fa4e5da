import { combinedSignal } from '../../upstream/abort.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { VerifierError } from '../../errors.js';
import { notAUrl, publicUrl, redactorOf, redirectTarget, secretsOf } from '../../upstream/publicUrl.js';
import { BufferPool, ByteBudget, readCapped, type CappedBody, type CappedBuffer } from '../../upstream/body.js';
import type { LedgerNodeCode } from './errors.js';
import { Http1Agent } from '../../upstream/http1Agent.js';
import { skipBodyBuffer } from './blocks/jsonSkip.js';

/**
 * Small client for a snarkOS ledger node's REST API (`GET {base}/program/…/mapping/…`,
 * `/blocks?start&end`, `/transaction/{id}`…): per-request timeout, an overall deadline, bounded
 * retries with exponential backoff on network errors, timeouts and 5xx.
 *
 * Rate limits, in every form nodes send them, slow the call down and never end it before
 * `rateLimitPatienceMs` of waiting: 429 (Retry-After honoured up to a cap); snarkOS on its
 * `/{network}` and `/v1` paths, which rewrites the limiter's 429 into a 500 whose body ends
 * `(HTTP 429)` and drops Retry-After (the body's "Wait for Ns" is honoured instead); an old (2024)
 * node's limiter text with status 200. A rate-limited attempt does not count against `retries` or
 * the deadline. Neither does the wait for our own pacing (`acquire`, a slot of the rate limiter):
 * an attempt's timeout starts when it is sent.
 */
export interface LedgerNodeClientOptions {
  /**
   * Node base URL including the network, e.g. `https://api.explorer.provable.com/v1/mainnet`. Its
   * query parameters (say an API key a gateway reads there) are sent with every request and never
   * shown; userinfo (`user:password@`) is refused: pass a credential in `headers`.
   */
  baseUrl: string;
  /** Headers sent with every request (an API key). */
  headers?: Record<string, string>;
  /** More values never shown in messages (a JWT inside an Authorization header's value). */
  secrets?: readonly string[];
  /**
   * Aborts every request in progress and every later one (the server is shutting down): the call
   * fails at once, LEDGER_NODE_UNREACHABLE with the signal's reason, without retries.
   */
  signal?: AbortSignal;
  /** Time limit of one request, body included. */
  timeoutMs: number;
  /** Further attempts after the first. Default 3. */
  retries?: number;
  /** First backoff; doubled for each further retry. Default 500 ms. */
  backoffMs?: number;
  /** Cap on one backoff and on an honoured Retry-After. Default 10 000 ms. */
  maxBackoffMs?: number;
  /** Budget of one call over all its attempts and waits. Default: every attempt's timeout plus `maxBackoffMs` per retry. */
  deadlineMs?: number;
  /** Most time one call waits out rate limits before it fails LEDGER_NODE_RATE_LIMITED. Default 300 000 ms. */
  rateLimitPatienceMs?: number;
  /** Largest accepted response body, read as a stream and abandoned beyond it. Default 32 MiB. */
  maxBodyBytes?: number;
  /**
   * Bytes of node bodies held at once, shared by every client of the process (default
   * LEDGER_NODE_BODY_BUDGET): an answer with no room is abandoned and the attempt fails
   * LEDGER_NODE_BODY_BUDGET (retryable; a lookup answers 503).
   */
  bodyBudget?: ByteBudget;
  /**
   * Waits for the caller's permission to send an attempt (a slot of its rate limiter). The wait
   * counts neither against the attempt's timeout, which starts when it is sent, nor against the
   * call's deadline.
   */
  acquire?: () => Promise<void>;
  /**
   * The fetch every request goes through, the raw bytes of `getBytes`/`readBytes` included (a
   * test's, a proxy's). Without it, JSON is fetched with the global fetch and raw bytes are read by
   * the client's own HTTP/1.1 reader (src/upstream/http1Agent.ts, docs/block-sources.md).
   */
  fetchImpl?: typeof fetch;
}

export interface LedgerNodeClient {
  /** The base URL as it may be shown: scheme, host and path without trailing slashes (no query). */
  readonly baseUrl: string;
  /**
   * GETs `{baseUrl}{pathAndQuery}` and returns the JSON-decoded body; `undefined` (without
   * retrying) when `absentWhen` says an error answer means "no such thing".
   */
  getJson(pathAndQuery: string, opts?: GetOptions): Promise<unknown>;
  /** `text` with the client's credentials (base query, header values, secrets) cut out. */
  redact?(text: string): string;
  /**
   * GETs `{baseUrl}{pathAndQuery}` like `getJson` (same retries, rate limits, cap and budget) and
   * returns the raw body of a 200 answer, for a reader that does not build all of it (the `/blocks`
   * reader). Read by the HTTP/1.1 reader of http1Agent.ts (each body byte copied once) unless
   * `fetchImpl` is injected.
   */
  getBytes(pathAndQuery: string): Promise<Buffer>;
  /**
   * `getBytes`, the body handed to `read` while still held against the body budget, then given
   * back: its buffer is reused for a later body (LEDGER_NODE_BODY_POOL), so `read` must keep no
   * view of the bytes (decoded strings are copies). What `read` throws is thrown as is.
   */
  readBytes?<T>(pathAndQuery: string, read: (bytes: Buffer, attempt: number) => T, arrived?: Arrived): Promise<T>;
}

/**
 * Told of a body's bytes as they land, for a reader that reads while they arrive: the buffer, how
 * many of its first bytes are the body's so far, and which attempt at the request they belong to
 * (the same number `readBytes`'s `read` is then given with the whole body; a retry's bytes start
 * over at 0). The buffer is the one `read` gets (or, for a body of undeclared length, one its
 * bytes were since moved to at the same offsets).
 */
export type Arrived = (bytes: Buffer, size: number, attempt: number) => void;

export interface GetOptions {
  absentWhen?: (status: number, body: string) => boolean;
  /** Largest body accepted for this request (a transaction, a mapping value), below the client's `maxBodyBytes`. */
  maxBodyBytes?: number;
}

/** `/seg1/seg2/…` with every segment URL-encoded. */
export function ledgerPath(...segments: string[]): string {
  return segments.map((s) => `/${encodeURIComponent(s)}`).join('');
}

const DEFAULT_RETRIES = 3;
const DEFAULT_BACKOFF_MS = 500;
const DEFAULT_MAX_BACKOFF_MS = 10_000;
const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;
/**
 * The process's budget for ledger-node bodies being read and parsed at once: one body at the
 * 32 MiB cap (a /blocks range), or many ordinary ones (a transaction is some kB, capped at 4 MiB by
 * its caller; a block some hundred kB). A body costs about twice its size while parsed (its bytes
 * and their text), so this bounds what concurrent lookups and the watcher can make the node's
 * answers cost to ≈ 64 MiB, inside the 384 MiB the README sizes for (bench/memory.ts `hostile`).
 */
export const LEDGER_NODE_BODY_BUDGET = new ByteBudget(32 * 1024 * 1024);
/**
 * Buffers of bodies handed to `readBytes` readers, reused: at most one budget's worth kept free
 * (with the 32 MiB budget a scan's 17.5 MB ranges are read one at a time: one buffer, kept). Each
 * lies in the memory of the `/blocks` reader's WebAssembly skipper (jsonSkip.ts), which reads the
 * body where the socket's bytes landed rather than a copy.
 */
export const LEDGER_NODE_BODY_POOL = new BufferPool(32 * 1024 * 1024, skipBodyBuffer);
const ERROR_BODY_BYTES = 4096;
const SHOWN_BODY_CHARS = 200;
const DEFAULT_RATE_LIMIT_PATIENCE_MS = 300_000;
const RATE_LIMIT_TEXT = /rate[\s_-]*limit|too many requests/i;
/** snarkOS v1 error middleware: the limiter's 429 as a 500 whose body ends "(HTTP 429)". */
const V1_RATE_LIMIT = /\(HTTP 429\)\s*$/;
/** tower_governor's "Too Many Requests! Wait for 3s". */
const WAIT_FOR = /wait for (\d+(?:\.\d+)?)\s*s\b/i;

/** The wait the limiter's own text asks for, in ms. */
function waitHint(text: string): number | undefined {
  const m = WAIT_FOR.exec(text);
  return m ? Math.round(Number(m[1]) * 1000) : undefined;
}

interface Failure {
  code: LedgerNodeCode;
  reason: string;
  retryable: boolean;
  retryAfterMs?: number;
  /** The node's rate limiter answered: wait and ask again (not a failed attempt). */
  rateLimited?: true;
}

/** A success; `release` (raw bytes read for `readBytes`) gives the body back once read. */
type Attempt = { ok: true; value: unknown; release?: () => void } | { ok: false; failure: Failure };

/** The start of a node's text as shown: redacted first (`show`), then cut, so no secret straddles the cut. */
function excerpt(text: string, show: (t: string) => string): string {
  const t = show(text.trim());
  return JSON.stringify(t.length > SHOWN_BODY_CHARS ? `${t.slice(0, SHOWN_BODY_CHARS)}…` : t);
}

/**
 * A value a node answered (a JSON value of a 200 body, or a text in it), as a message may show it:
 * its JSON text with the client's credentials cut out (the node may echo the JWT or API key it was
 * sent, in any encoding, a 200 answer included), then cut to `max` characters.
 */
export function shownValue(client: Pick<LedgerNodeClient, 'redact'>, value: unknown, max = 100): string {
  const text = JSON.stringify(value) ?? String(value);
  const t = client.redact ? client.redact(text) : text;
  return t.length > max ? `${t.slice(0, max)}…` : t;
}

/** Retry-After as delta-seconds or HTTP date, in ms from now; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  if (!/^[A-Za-z]{3}, /.test(v)) return undefined; // IMF-fixdate, e.g. "Wed, 21 Oct 2015 07:28:00 GMT"
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * One answer as the status handling sees it, whichever transport brought it: fetch (the JSON
 * path, and every path when `fetchImpl` is injected) or our HTTP/1.1 reader (raw `/blocks` bytes).
 */
interface Answer {
  status: number;
  header(name: string): string | null;
  /** Reads at most `limit` bytes of the body as a stream (src/upstream/body.ts), held against `budget` until `release`. */
  read(limit: number, budget?: ByteBudget, pool?: BufferPool, onBytes?: CappedBuffer['onBytes']): Promise<CappedBody>;
}

/** Sends a GET, aborted (body included) when `signal` aborts. */
type Send = (url: string, headers: Record<string, string>, signal: AbortSignal) => Promise<Answer>;

function sendWith(fetchImpl: typeof fetch): Send {
  return async (url, headers, signal) => {
    // No redirect is followed: it would carry the node's API key to another origin, and its answer is not the node's.
    const res = await fetchImpl(url, { method: 'GET', headers, signal, redirect: 'manual' });
    return { status: res.status, header: (name) => res.headers.get(name), read: (limit, budget, _pool, onBytes) => readCapped(res, limit, budget, onBytes) };
  };
}

/**
 * Connections to nodes kept open between raw-bytes requests (a scan sends thousands of them to one
 * node): a few idle ones per origin, which never hold the process open.
 */
const HTTP1_AGENT = new Http1Agent();

/**
 * The raw-bytes transport (what the `/blocks` reader's hundreds of KB per block go through): our
 * own HTTP/1.1 reader on net/tls (src/upstream/http1Agent.ts), which copies each body byte once,
 * from the socket's chunk straight into one buffer sized from Content-Length (a pooled one for
 * `readBytes`), capped and held against the budget by the same sink as every upstream body
 * (src/upstream/body.ts). A 200 answer whose declared length fits the budget waits for room in it
 * (bodies in flight being read) within the attempt's time limit, rather than being abandoned and
 * sent again: a scan's 17.5 MB ranges at concurrency 4 do not fit the 32 MiB budget all at once.
 * A connection closed before the body's end fails the attempt (LEDGER_NODE_UNREACHABLE, retried).
 */
function sendHttp1(agent: Http1Agent): Send {
  return async (url, headers, signal) => {
    const res = await agent.get(url, { ...headers, 'accept-encoding': 'identity' }, signal);
    return { status: res.status, header: (name) => res.header(name), read: (limit, budget, pool, onBytes) => res.read(limit, budget, pool, res.status === 200, onBytes) };
  };
}

/**
 * Reads at most `limit` bytes of the body; `truncated` tells whether more was there, `overBudget`
 * that `budget` had no room (nothing usable was read). The bytes stay held against the budget
 * until `release`.
 */
async function readBody(res: Answer, limit: number, budget?: ByteBudget): Promise<{ text: string; truncated: boolean; overBudget: boolean; release: () => void }> {
  const { bytes, ...rest } = await readBodyBytes(res, limit, budget);
  return { text: bytes.toString('utf8'), ...rest };
}

/** readBody's bytes, undecoded (what the `/blocks` reader walks). */
async function readBodyBytes(res: Answer, limit: number, budget?: ByteBudget, pool?: BufferPool, onBytes?: CappedBuffer['onBytes']): Promise<{ bytes: Buffer; truncated: boolean; overBudget: boolean; release: () => void }> {
  const body = await res.read(limit, budget, pool, onBytes);
  if (body.ok) return { bytes: body.bytes, truncated: false, overBudget: false, release: body.release };
  const bytes = body.reason === 'tooLarge' ? body.bytes : Buffer.alloc(0);
  return { bytes, truncated: body.reason === 'tooLarge', overBudget: body.reason === 'overBudget', release: () => undefined };
}

/** What a 200 answer is returned as: decoded JSON, the raw bytes, or the raw bytes in a pooled buffer held until the caller has read them. */
type BodyAs = 'json' | 'bytes' | 'pooled';

/** Why a request was abandoned through the caller's signal. */
function abandoned(signal: AbortSignal): string {
  const r: unknown = signal.reason;
  return `abandoned: ${r instanceof Error ? r.message : typeof r === 'string' ? r : 'aborted'}`;
}

function isTimeout(e: unknown): boolean {
  return e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError');
}

function networkReason(e: unknown): string {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  const cause = err.cause?.code ?? err.cause?.message;
  return cause ? `${err.message} (${cause})` : String(err.message ?? e);
}

export function createLedgerNodeClient(opts: LedgerNodeClientOptions): LedgerNodeClient {
  const why = notAUrl(opts.baseUrl);
  if (why !== undefined) throw new VerifierError<LedgerNodeCode>('LEDGER_NODE_BAD_URL', `ledger node: base URL ${why}`);
  const parsed = new URL(opts.baseUrl);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new VerifierError<LedgerNodeCode>('LEDGER_NODE_BAD_URL', `ledger node: base URL ${publicUrl(opts.baseUrl)} must be http or https`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new VerifierError<LedgerNodeCode>('LEDGER_NODE_BAD_URL', `ledger node: base URL ${publicUrl(opts.baseUrl)} must not hold credentials (user:password@); pass an API key as a header`);
  }
  // What requests go to: the base path without trailing slashes, plus the base's own query.
  const baseUrl = `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
  const baseQuery = [...parsed.searchParams];
  const requestUrl = (pathAndQuery: string): string => {
    const u = new URL(`${baseUrl}${pathAndQuery.startsWith('/') ? '' : '/'}${pathAndQuery}`);
    for (const [k, v] of baseQuery) u.searchParams.append(k, v);
    return u.toString();
  };
  const headers = { accept: 'application/json', ...opts.headers };
  // A node may echo the request (query included) in an error body: its credentials, in every
  // encoding, are cut out of what is shown (src/upstream/publicUrl.ts), and so are the extra secrets
  // (a listing client's JWT).
  const redact = redactorOf([...secretsOf(opts.baseUrl, opts.headers), ...(opts.secrets ?? [])]);
  const signal = opts.signal;
  const retries = Math.max(0, Math.floor(opts.retries ?? DEFAULT_RETRIES));
  const backoffMs = Math.max(0, opts.backoffMs ?? DEFAULT_BACKOFF_MS);
  const maxBackoffMs = Math.max(0, opts.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS);
  const maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const bodyBudget = opts.bodyBudget ?? LEDGER_NODE_BODY_BUDGET;
  const sendFetch = sendWith(opts.fetchImpl ?? fetch);
  // Raw bytes (the /blocks reader) over our own HTTP/1.1 reader unless a fetch is injected (tests, a proxy).
  const sendBytes = opts.fetchImpl ? sendFetch : sendHttp1(HTTP1_AGENT);
  const readsRawBytes = !opts.fetchImpl;
  const backoff = (retry: number): number => Math.min(backoffMs * 2 ** retry, maxBackoffMs);
  const deadlineMs = opts.deadlineMs ?? opts.timeoutMs * (retries + 1) + maxBackoffMs * retries;
  const rateLimitPatienceMs = Math.max(0, opts.rateLimitPatienceMs ?? DEFAULT_RATE_LIMIT_PATIENCE_MS);

  async function attempt(url: string, timeoutMs: number, getOpts: GetOptions, as: BodyAs, onBytes?: CappedBuffer['onBytes']): Promise<Attempt> {
    const { absentWhen } = getOpts;
    const maxBody = Math.min(maxBodyBytes, getOpts.maxBodyBytes ?? maxBodyBytes);
    const fail = (code: LedgerNodeCode, reason: string, retryable: boolean, retryAfterMs?: number): Attempt => ({
      ok: false,
      failure: {
        code,
        reason,
        retryable,
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
        ...(code === 'LEDGER_NODE_RATE_LIMITED' ? { rateLimited: true as const } : {}),
      },
    });
    if (signal?.aborted) return fail('LEDGER_NODE_UNREACHABLE', abandoned(signal), false);
    // The time limit and the shutdown signal, both held until the answer is read.
    const limit = combinedSignal(signal ? [AbortSignal.timeout(timeoutMs), signal] : [AbortSignal.timeout(timeoutMs)]);
    try {
      const res = await (as === 'json' ? sendFetch : sendBytes)(url, headers, limit.signal);
      if (res.status === 429) {
        const { text } = await readBody(res, ERROR_BODY_BYTES);
        const after = parseRetryAfter(res.header('retry-after')) ?? waitHint(text);
        const hint = after === undefined ? '' : ` (wait ${after} ms)`;
        return fail('LEDGER_NODE_RATE_LIMITED', `rate limited: status 429${hint}, body ${excerpt(text, redact)}`, true, after);
      }
      // Our HTTP/1.1 reader asks for the body as is (identity) and reads it as bytes: a proxy that
      // compresses it anyway would make it unreadable blocks, so it is named for what it is.
      const coding = readsRawBytes && as !== 'json' ? res.header('content-encoding') : null;
      if (coding !== null && coding.trim().toLowerCase() !== 'identity') {
        await readBody(res, ERROR_BODY_BYTES);
        return fail('LEDGER_NODE_BAD_RESPONSE', `the answer is sent with Content-Encoding ${JSON.stringify(coding.slice(0, 40))}, though the request asked for identity (Accept-Encoding: identity): a proxy between here and the node compresses it; have it pass the node's answers unchanged`, false);
      }
      if (res.status >= 300 && res.status < 400) {
        await readBody(res, ERROR_BODY_BYTES);
        return fail('LEDGER_NODE_HTTP_ERROR', `status ${res.status}, a redirect${redirectTarget(res.header('location'))} that is not followed (the node's API key would go with it, and its answer would not be the node's): set the base URL to the address the node serves on`, false);
      }
      if (res.status !== 200) {
        const { text } = await readBody(res, ERROR_BODY_BYTES);
        if (res.status === 500 && V1_RATE_LIMIT.test(text)) {
          return fail('LEDGER_NODE_RATE_LIMITED', `rate limited: status 500 with the body ${excerpt(text, redact)}`, true, waitHint(text));
        }
        if (absentWhen?.(res.status, text)) return { ok: true, value: undefined };
        return fail('LEDGER_NODE_HTTP_ERROR', `status ${res.status}, body ${excerpt(text, redact)}`, res.status >= 500);
      }
      const { bytes, truncated, overBudget, release } = await readBodyBytes(res, maxBody, bodyBudget, as === 'pooled' ? LEDGER_NODE_BODY_POOL : undefined, onBytes);
      if (truncated) {
        return fail('LEDGER_NODE_BAD_RESPONSE', `response body is larger than ${maxBody} bytes (abandoned at the cap)`, false);
      }
      if (overBudget) {
        return fail('LEDGER_NODE_BODY_BUDGET', `answer abandoned: ledger-node bodies being read already hold the process's budget of ${bodyBudget.limit} bytes`, true);
      }
      // The body's bytes stay held against the budget until parsed (raw bytes: until handed over;
      // pooled ones: until the caller's reader is done with them, `get` releasing them).
      // A raw body is decoded only when short enough to be an old node's rate-limit text.
      let handedOver = false;
      const raw = (): Attempt => {
        if (as !== 'pooled') return { ok: true, value: bytes };
        handedOver = true;
        return { ok: true, value: bytes, release };
      };
      const text = as === 'json' || bytes.length <= ERROR_BODY_BYTES ? bytes.toString('utf8') : '';
      try {
        const value = JSON.parse(text) as unknown;
        return as === 'json' ? { ok: true, value } : raw();
      } catch {
        if (as !== 'json' && !RATE_LIMIT_TEXT.test(text)) return raw();
        if (RATE_LIMIT_TEXT.test(text)) {
          return fail('LEDGER_NODE_RATE_LIMITED', `rate limited: status 200 with the text ${excerpt(text, redact)}`, true, waitHint(text));
        }
        return fail('LEDGER_NODE_BAD_RESPONSE', `status 200 but the body is not JSON: ${excerpt(text, redact)}`, false);
      } finally {
        if (!handedOver) release();
      }
    } catch (e) {
      if (signal?.aborted) return fail('LEDGER_NODE_UNREACHABLE', abandoned(signal), false);
      if (isTimeout(e)) return fail('LEDGER_NODE_TIMEOUT', `no complete answer within ${timeoutMs} ms`, true);
      return fail('LEDGER_NODE_UNREACHABLE', `request failed: ${networkReason(e)}`, true);
    } finally {
      limit.done();
    }
  }

  /** A wait between attempts, cut short by the caller's signal (the next attempt then fails at once). */
  // Through combinedSignal: concurrent waits share one listener on the process's shutdown signal.
  const pause = (ms: number): Promise<unknown> => {
    if (!signal) return sleep(ms);
    const c = combinedSignal([signal]);
    return sleep(ms, undefined, { signal: c.signal })
      .catch(() => undefined)
      .finally(() => c.done());
  };

  async function get(pathAndQuery: string, getOpts: GetOptions, as: BodyAs, read?: (bytes: Buffer, attempt: number) => unknown, arrived?: Arrived): Promise<unknown> {
    const url = requestUrl(pathAndQuery);
    // what messages show: the configured base without its query, then our own path and query
    const shown = `${baseUrl}${pathAndQuery.startsWith('/') ? '' : '/'}${pathAndQuery}`;
    let deadline = Date.now() + deadlineMs;
    const giveUp = (f: Failure, attempts: number, extra = ''): never => {
      throw new VerifierError<LedgerNodeCode>(
        f.code,
        `ledger node: GET ${shown} failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${redact(f.reason)}${extra}`,
      );
    };
    let limitedWaitMs = 0;
    let limitedInARow = 0;
    for (let n = 0, attempts = 1; ; attempts++) {
      if (opts.acquire) {
        const waitedFrom = Date.now();
        await opts.acquire();
        deadline += Date.now() - waitedFrom;
      }
      const remaining = deadline - Date.now();
      const onBytes = arrived && ((bytes: Buffer, size: number) => arrived(bytes, size, attempts));
      const result = await attempt(url, Math.max(1, Math.min(opts.timeoutMs, remaining)), getOpts, as, onBytes);
      if (result.ok) {
        if (!read) return result.value;
        try {
          return read(result.value as Buffer, attempts);
        } finally {
          result.release?.();
        }
      }
      const f = result.failure;
      if (f.rateLimited) {
        // Slow down and ask again: waiting out a limiter is not a failed attempt.
        const wait = Math.min(f.retryAfterMs ?? backoff(limitedInARow), maxBackoffMs);
        limitedInARow++;
        if (limitedWaitMs + wait > rateLimitPatienceMs) {
          giveUp(f, attempts, `; still rate limited after waiting ${limitedWaitMs} ms (rateLimitPatienceMs ${rateLimitPatienceMs})`);
        }
        limitedWaitMs += wait;
        deadline += wait;
        await pause(wait);
        deadline = Math.max(deadline, Date.now() + opts.timeoutMs);
        continue;
      }
      limitedInARow = 0;
      if (!f.retryable || n >= retries) giveUp(f, attempts);
      const wait = f.retryAfterMs !== undefined ? Math.min(f.retryAfterMs, maxBackoffMs) : backoff(n);
      if (Date.now() + wait >= deadline) {
        giveUp(f, attempts, `; the overall deadline of ${deadlineMs} ms leaves no time for another attempt`);
      }
      n++;
      await pause(wait);
    }
  }

  return {
    baseUrl,
    getJson: (pathAndQuery, getOpts = {}) => get(pathAndQuery, getOpts, 'json'),
    getBytes: async (pathAndQuery) => (await get(pathAndQuery, {}, 'bytes')) as Buffer,
    readBytes: async <T>(pathAndQuery: string, read: (bytes: Buffer, attempt: number) => T, arrived?: Arrived) => (await get(pathAndQuery, {}, 'pooled', read, arrived)) as T,
    redact,
  };
}
