import { setTimeout as sleep } from 'node:timers/promises';
import { VerifierError } from '../../errors.js';
import { publicUrl } from '../../publicUrl.js';
import type { LedgerNodeCode } from './errors.js';

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
  /** Node base URL including the network, e.g. `https://api.explorer.provable.com/v1/mainnet`. */
  baseUrl: string;
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
  /** Largest accepted response body. Default 32 MiB. */
  maxBodyBytes?: number;
  /**
   * Waits for the caller's permission to send an attempt (a slot of its rate limiter). The wait
   * counts neither against the attempt's timeout, which starts when it is sent, nor against the
   * call's deadline.
   */
  acquire?: () => Promise<void>;
  fetchImpl?: typeof fetch;
}

export interface LedgerNodeClient {
  /** The base URL without trailing slashes. */
  readonly baseUrl: string;
  /**
   * GETs `{baseUrl}{pathAndQuery}` and returns the JSON-decoded body; `undefined` (without
   * retrying) when `absentWhen` says an error answer means "no such thing".
   */
  getJson(pathAndQuery: string, opts?: GetOptions): Promise<unknown>;
}

export interface GetOptions {
  absentWhen?: (status: number, body: string) => boolean;
}

/** `/seg1/seg2/…` with every segment URL-encoded. */
export function ledgerPath(...segments: string[]): string {
  return segments.map((s) => `/${encodeURIComponent(s)}`).join('');
}

const DEFAULT_RETRIES = 3;
const DEFAULT_BACKOFF_MS = 500;
const DEFAULT_MAX_BACKOFF_MS = 10_000;
const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;
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

type Attempt = { ok: true; value: unknown } | { ok: false; failure: Failure };

function excerpt(text: string): string {
  const t = text.trim();
  return JSON.stringify(t.length > SHOWN_BODY_CHARS ? `${t.slice(0, SHOWN_BODY_CHARS)}…` : t);
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

/** Reads at most `limit` bytes of the body; `truncated` tells whether more was there. */
async function readBody(res: Response, limit: number): Promise<{ text: string; truncated: boolean }> {
  if (!res.body) return { text: '', truncated: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.length > limit) {
      chunks.push(value.subarray(0, limit - size));
      size = limit;
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
    size += value.length;
  }
  return { text: Buffer.concat(chunks, size).toString('utf8'), truncated };
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
  const baseUrl = opts.baseUrl.replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(baseUrl);
  } catch {
    throw new VerifierError<LedgerNodeCode>('LEDGER_NODE_BAD_URL', `ledger node: base URL ${JSON.stringify(opts.baseUrl)} is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new VerifierError<LedgerNodeCode>('LEDGER_NODE_BAD_URL', `ledger node: base URL ${JSON.stringify(opts.baseUrl)} must be http or https`);
  }
  const retries = Math.max(0, Math.floor(opts.retries ?? DEFAULT_RETRIES));
  const backoffMs = Math.max(0, opts.backoffMs ?? DEFAULT_BACKOFF_MS);
  const maxBackoffMs = Math.max(0, opts.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS);
  const maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const fetchImpl = opts.fetchImpl ?? fetch;
  const backoff = (retry: number): number => Math.min(backoffMs * 2 ** retry, maxBackoffMs);
  const deadlineMs = opts.deadlineMs ?? opts.timeoutMs * (retries + 1) + maxBackoffMs * retries;
  const rateLimitPatienceMs = Math.max(0, opts.rateLimitPatienceMs ?? DEFAULT_RATE_LIMIT_PATIENCE_MS);

  async function attempt(url: string, timeoutMs: number, absentWhen?: GetOptions['absentWhen']): Promise<Attempt> {
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
    try {
      const res = await fetchImpl(url, {
        method: 'GET',
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (res.status === 429) {
        const { text } = await readBody(res, ERROR_BODY_BYTES);
        const after = parseRetryAfter(res.headers.get('retry-after')) ?? waitHint(text);
        const hint = after === undefined ? '' : ` (wait ${after} ms)`;
        return fail('LEDGER_NODE_RATE_LIMITED', `rate limited: status 429${hint}, body ${excerpt(text)}`, true, after);
      }
      if (res.status !== 200) {
        const { text } = await readBody(res, ERROR_BODY_BYTES);
        if (res.status === 500 && V1_RATE_LIMIT.test(text)) {
          return fail('LEDGER_NODE_RATE_LIMITED', `rate limited: status 500 with the body ${excerpt(text)}`, true, waitHint(text));
        }
        if (absentWhen?.(res.status, text)) return { ok: true, value: undefined };
        return fail('LEDGER_NODE_HTTP_ERROR', `status ${res.status}, body ${excerpt(text)}`, res.status >= 500);
      }
      const { text, truncated } = await readBody(res, maxBodyBytes);
      if (truncated) {
        return fail('LEDGER_NODE_BAD_RESPONSE', `response body is larger than ${maxBodyBytes} bytes`, false);
      }
      try {
        return { ok: true, value: JSON.parse(text) as unknown };
      } catch {
        if (RATE_LIMIT_TEXT.test(text)) {
          return fail('LEDGER_NODE_RATE_LIMITED', `rate limited: status 200 with the text ${excerpt(text)}`, true, waitHint(text));
        }
        return fail('LEDGER_NODE_BAD_RESPONSE', `status 200 but the body is not JSON: ${excerpt(text)}`, false);
      }
    } catch (e) {
      if (isTimeout(e)) return fail('LEDGER_NODE_TIMEOUT', `no complete answer within ${timeoutMs} ms`, true);
      return fail('LEDGER_NODE_UNREACHABLE', `request failed: ${networkReason(e)}`, true);
    }
  }

  async function getJson(pathAndQuery: string, getOpts: GetOptions = {}): Promise<unknown> {
    const url = `${baseUrl}${pathAndQuery.startsWith('/') ? '' : '/'}${pathAndQuery}`;
    // what messages show: the configured base without credentials or query
    const shown = `${publicUrl(baseUrl)}${pathAndQuery.startsWith('/') ? '' : '/'}${pathAndQuery}`;
    let deadline = Date.now() + deadlineMs;
    const giveUp = (f: Failure, attempts: number, extra = ''): never => {
      throw new VerifierError<LedgerNodeCode>(
        f.code,
        `ledger node: GET ${shown} failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${f.reason}${extra}`,
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
      const result = await attempt(url, Math.max(1, Math.min(opts.timeoutMs, remaining)), getOpts.absentWhen);
      if (result.ok) return result.value;
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
        await sleep(wait);
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
      await sleep(wait);
    }
  }

  return { baseUrl, getJson };
}
