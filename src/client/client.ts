/**
 * Typed client of the notarization backends and the verification backend: several notarizers are
 * asked in parallel, their attestations checked against each other and the request, and EVERY
 * attestation is verified by the verification backend (`POST {verifier}/verify`) before it is
 * returned. Unlike the official SDK (which carries on when some notarizers fail), this client
 * requires every configured notarizer to deliver a verified attestation and says which failed.
 */
import { AttestationError, AttestationIntegrityError, ClientError, NotarizationError } from './errors.js';
import { maskHeaders, mergeRequestHeaders } from './headers.js';
import { parseNotarizerInfo, type NotarizerInfoRecord } from './info.js';
import { validateAttestationRequest } from './validate.js';
import { readCapped } from '../upstream/body.js';
import {
  DEFAULT_TIMEOUT_MS,
  type AttestationRequest,
  type AttestationResponse,
  type MultiAttestationResponse,
  type NotarizationOptions,
  type NotarizerErrorBody,
  type VerifyResponseBody,
} from './types.js';

export interface NotarizerClientOptions {
  /** Base URLs of the notarization backends (scheme, host, port, optional path prefix). */
  notarizers: readonly string[];
  /** Base URL of the verification backend. */
  verifier: string;
  /** Default timeout (ms) for every request; 5000 when unset (the SDK's DEFAULT_TIMEOUT_MS). */
  timeout?: number;
  /** fetch implementation (default: the global fetch). */
  fetch?: typeof fetch;
}

export interface TestSelectorResult {
  attester: string;
  ok: boolean;
  responseBody?: string;
  extractedData?: string;
  responseStatusCode?: number;
  /** Present when the notarizer reported an error or could not be reached. */
  error?: { code: string; message: string; errorCode?: number; errorDetails?: string };
}

function trimBase(u: string): string {
  const url = new URL(u);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ClientError('BAD_CONFIG', `base URL ${u} must be http(s)`);
  return url.toString().replace(/\/+$/, '');
}

const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

interface Answer {
  status: number;
  body: unknown;
}

export class NotarizerClient {
  readonly notarizers: readonly string[];
  readonly verifier: string;
  readonly timeout: number;
  readonly #fetch: typeof fetch;

  constructor(opts: NotarizerClientOptions) {
    if (!opts.notarizers.length) throw new ClientError('BAD_CONFIG', 'at least one notarizer is required');
    if (opts.notarizers.length > 16) throw new ClientError('BAD_CONFIG', 'at most 16 notarizers are supported');
    this.notarizers = opts.notarizers.map(trimBase);
    this.verifier = trimBase(opts.verifier);
    this.timeout = opts.timeout ?? DEFAULT_TIMEOUT_MS;
    this.#fetch = opts.fetch ?? fetch;
  }

  /** One HTTP exchange; network failures, timeouts and non-JSON answers become AttestationError. */
  async #request(base: string, path: string, init: { method: 'GET' | 'POST'; body?: unknown }, timeout: number): Promise<Answer> {
    let res: Response;
    try {
      res = await this.#fetch(`${base}${path}`, {
        method: init.method,
        headers: init.body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        redirect: 'error',
        signal: AbortSignal.timeout(timeout),
      });
    } catch (e) {
      const name = (e as { name?: string }).name;
      if (name === 'TimeoutError' || name === 'AbortError') {
        throw new AttestationError('TIMEOUT', base, `no answer to ${init.method} ${path} within ${timeout} ms`, { cause: e });
      }
      throw new AttestationError('UNREACHABLE', base, `${init.method} ${path} failed: ${(e as Error).message}`, { cause: e });
    }
    let text: string;
    try {
      // Read as a stream and abandoned at the cap: a notarizer answering without end costs MAX_ANSWER_BYTES.
      const read = await readCapped(res, MAX_ANSWER_BYTES);
      if (!read.ok) throw new AttestationError('BAD_ANSWER', base, `answer to ${path} is larger than ${MAX_ANSWER_BYTES} bytes (abandoned at the limit)`, { httpStatus: res.status });
      text = read.bytes.toString('utf8');
    } catch (e) {
      if (e instanceof AttestationError) throw e;
      throw new AttestationError('UNREACHABLE', base, `reading the answer to ${init.method} ${path} failed: ${(e as Error).message}`, { cause: e, httpStatus: res.status });
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new AttestationError('BAD_ANSWER', base, `answer to ${init.method} ${path} (HTTP ${res.status}) is not JSON`, { httpStatus: res.status });
    }
    return { status: res.status, body };
  }

  static #errorFromBody(base: string, status: number, body: unknown): AttestationError {
    const b = (typeof body === 'object' && body !== null ? body : {}) as NotarizerErrorBody;
    const code = typeof b.errorCode === 'number' ? b.errorCode : undefined;
    const msg = typeof b.errorMessage === 'string' ? b.errorMessage : `HTTP ${status}`;
    return new AttestationError('NOTARIZER_ERROR', base, code === undefined ? msg : `[${code}] ${msg}`, {
      ...(code === undefined ? {} : { errorCode: code }),
      ...(typeof b.errorDetails === 'string' ? { errorDetails: b.errorDetails } : {}),
      ...(typeof b.responseStatusCode === 'number' ? { responseStatusCode: b.responseStatusCode } : {}),
      httpStatus: status,
    });
  }

  /** Runs `fn` on every notarizer in parallel; throws NotarizationError naming every failure. */
  async #all<T>(fn: (base: string) => Promise<T>): Promise<T[]> {
    const settled = await Promise.allSettled(this.notarizers.map(fn));
    const failures: AttestationError[] = [];
    const out: T[] = [];
    settled.forEach((s, i) => {
      if (s.status === 'fulfilled') out.push(s.value);
      else {
        const base = this.notarizers[i] as string;
        failures.push(s.reason instanceof AttestationError ? s.reason : new AttestationError('FAILED', base, String((s.reason as Error)?.message ?? s.reason), { cause: s.reason }));
      }
    });
    if (failures.length) throw new NotarizationError(failures, this.notarizers.length);
    return out;
  }

  /** `GET /info` of every notarizer, validated and typed. */
  async info(opts: { timeout?: number } = {}): Promise<NotarizerInfoRecord[]> {
    const timeout = opts.timeout ?? this.timeout;
    return this.#all(async (base) => {
      const a = await this.#request(base, '/info', { method: 'GET' }, timeout);
      if (a.status !== 200) throw NotarizerClient.#errorFromBody(base, a.status, a.body);
      try {
        return parseNotarizerInfo(a.body, base);
      } catch (e) {
        throw new AttestationError('BAD_ANSWER', base, (e as Error).message, { cause: e, httpStatus: a.status });
      }
    });
  }

  /** `GET /whitelist` of every notarizer (host names, lower-cased). */
  async whitelist(opts: { timeout?: number } = {}): Promise<{ attester: string; hosts: string[] }[]> {
    const timeout = opts.timeout ?? this.timeout;
    return this.#all(async (base) => {
      const a = await this.#request(base, '/whitelist', { method: 'GET' }, timeout);
      if (a.status !== 200) throw NotarizerClient.#errorFromBody(base, a.status, a.body);
      if (!Array.isArray(a.body) || !a.body.every((h) => typeof h === 'string')) {
        throw new AttestationError('BAD_ANSWER', base, 'whitelist is not a JSON array of strings', { httpStatus: a.status });
      }
      return { attester: base, hosts: (a.body as string[]).map((h) => h.toLowerCase()) };
    });
  }

  /** The body POSTed to `/notarize`: `{...req, requestHeaders: {...defaults, ...user}, debugRequest}`. */
  static notarizeBody(req: AttestationRequest, debugRequest: boolean): Record<string, unknown> {
    return { ...req, requestHeaders: mergeRequestHeaders(req.requestHeaders), debugRequest };
  }

  /**
   * Attests `request` with every notarizer, checks the attestations (shape, echo of the request,
   * dataShouldMatch, maxTimeDeviation) and has EVERY one verified by the verification backend.
   * Returns the attestations in notarizer order (each with `enclaveUrl`).
   */
  async notarize(request: AttestationRequest, options: NotarizationOptions = {}): Promise<AttestationResponse[]> {
    const req = validateAttestationRequest(request, options.whitelist ? { whitelist: options.whitelist } : {});
    const timeout = options.timeout ?? this.timeout;
    const dataShouldMatch = options.dataShouldMatch ?? true;
    if (options.maxTimeDeviation !== undefined && (!Number.isFinite(options.maxTimeDeviation) || options.maxTimeDeviation < 0)) {
      throw new ClientError('BAD_OPTIONS', `maxTimeDeviation must be a non-negative number of milliseconds, got ${options.maxTimeDeviation}`);
    }
    const body = NotarizerClient.notarizeBody(req, false);
    const attestations = await this.#all(async (base) => {
      const a = await this.#request(base, '/notarize', { method: 'POST', body }, timeout);
      if (a.status !== 200) throw NotarizerClient.#errorFromBody(base, a.status, a.body);
      return { ...checkAttestationShape(a.body, base), enclaveUrl: new URL(base).origin };
    });
    attestations.forEach((att, i) => checkRequestEcho(att, req, this.notarizers[i] as string));

    if (dataShouldMatch) {
      const first = attestations[0] as AttestationResponse;
      const differing = attestations.filter((a) => a.attestationData !== first.attestationData);
      if (differing.length) {
        throw new AttestationIntegrityError(
          'DATA_MISMATCH',
          `attestation data mismatch: ${attestations.map((a, i) => `${this.notarizers[i]} → ${JSON.stringify(a.attestationData)}`).join(', ')}`,
          this.notarizers,
        );
      }
    }
    if (options.maxTimeDeviation !== undefined) {
      // timestamps are Unix seconds, the option is in milliseconds: compare in milliseconds.
      const ms = attestations.map((a) => a.timestamp * 1000);
      const spread = Math.max(...ms) - Math.min(...ms);
      if (spread > options.maxTimeDeviation) {
        throw new AttestationIntegrityError(
          'TIME_DEVIATION',
          `attestation timestamps deviate by ${spread} ms, more than maxTimeDeviation ${options.maxTimeDeviation} ms (timestamps in s: ${attestations.map((a, i) => `${this.notarizers[i]}=${a.timestamp}`).join(', ')})`,
          this.notarizers,
        );
      }
    }
    await this.verifyAttestations(attestations, { timeout });
    return attestations;
  }

  /**
   * Sends the attestations (single- or multi-request, userData of 8 or 10 chunks) to the
   * verification backend; throws AttestationIntegrityError naming
   * every attestation that is not in `validReports`, with the backend's reason.
   */
  async verifyAttestations(attestations: readonly (AttestationResponse | MultiAttestationResponse)[], opts: { timeout?: number } = {}): Promise<void> {
    const timeout = opts.timeout ?? this.timeout;
    let a: Answer;
    try {
      a = await this.#request(this.verifier, '/verify', { method: 'POST', body: { reports: attestations } }, timeout);
    } catch (e) {
      throw new AttestationIntegrityError('VERIFIER_UNAVAILABLE', `verification backend: ${(e as Error).message}`, [], { cause: e });
    }
    const v = a.body as Partial<VerifyResponseBody> | null;
    if (a.status !== 200 || typeof v !== 'object' || v === null || !Array.isArray(v.validReports)) {
      const why = typeof v === 'object' && v !== null && typeof v.errorMessage === 'string' ? `: ${v.errorMessage}` : '';
      throw new AttestationIntegrityError('VERIFICATION_FAILED', `verification backend answered HTTP ${a.status}${why}`);
    }
    const valid = new Set(v.validReports);
    const failed = attestations.map((_, i) => i).filter((i) => !valid.has(i));
    if (failed.length) {
      const reasons = failed.map((i) => {
        const r = v.reportErrors?.find((e) => e.index === i);
        const who = attestations[i]?.enclaveUrl ?? `report ${i}`;
        return `${who} (${attestations[i]?.reportType}): ${r ? `${r.errorCode}: ${r.errorMessage}` : (v.errorMessage ?? 'rejected')}`;
      });
      throw new AttestationIntegrityError(
        'VERIFICATION_FAILED',
        `verification failed for ${failed.length} of ${attestations.length} attestations: ${reasons.join('; ')}`,
        failed.map((i) => attestations[i]?.enclaveUrl ?? String(i)),
      );
    }
  }

  /**
   * Runs the request on every notarizer without attestation (`debugRequest: true`) and returns,
   * per notarizer, the full response body, the extracted data, the target's status code, and the
   * error when there is one. Request validation errors are thrown.
   */
  async testSelector(request: AttestationRequest, opts: { timeout?: number } = {}): Promise<TestSelectorResult[]> {
    const req = validateAttestationRequest(request);
    const timeout = opts.timeout ?? this.timeout;
    const body = NotarizerClient.notarizeBody(req, true);
    return Promise.all(
      this.notarizers.map(async (base): Promise<TestSelectorResult> => {
        let a: Answer;
        try {
          a = await this.#request(base, '/notarize', { method: 'POST', body }, timeout);
        } catch (e) {
          const err = e as AttestationError;
          return { attester: base, ok: false, error: { code: err.code, message: err.message } };
        }
        const b = (typeof a.body === 'object' && a.body !== null ? a.body : {}) as NotarizerErrorBody;
        const out: TestSelectorResult = { attester: base, ok: a.status === 200 };
        if (typeof b.responseBody === 'string') out.responseBody = b.responseBody;
        if (typeof b.extractedData === 'string') out.extractedData = b.extractedData;
        if (typeof b.responseStatusCode === 'number') out.responseStatusCode = b.responseStatusCode;
        if (a.status !== 200) {
          const e = NotarizerClient.#errorFromBody(base, a.status, a.body);
          out.error = {
            code: e.code,
            message: e.message,
            ...(e.errorCode === undefined ? {} : { errorCode: e.errorCode }),
            ...(e.errorDetails === undefined ? {} : { errorDetails: e.errorDetails }),
          };
        }
        return out;
      }),
    );
  }
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Shape check of a notarizer's AttestationResponse. */
export function checkAttestationShape(body: unknown, attester: string): AttestationResponse {
  const badShape = (m: string): never => {
    throw new AttestationError('BAD_ANSWER', attester, `attestation response: ${m}`, { httpStatus: 200 });
  };
  if (!isObj(body)) badShape('not an object');
  const b = body as Record<string, unknown>;
  if (typeof b.attestationReport !== 'string' || b.attestationReport === '') badShape('attestationReport must be a non-empty string');
  if (b.reportType !== 'sgx' && b.reportType !== 'nitro') badShape(`reportType must be sgx or nitro, got ${JSON.stringify(b.reportType)}`);
  if (typeof b.attestationData !== 'string') badShape('attestationData must be a string');
  if (typeof b.responseStatusCode !== 'number' || !Number.isInteger(b.responseStatusCode)) badShape('responseStatusCode must be an integer');
  if (typeof b.timestamp !== 'number' || !Number.isSafeInteger(b.timestamp) || b.timestamp < 0) badShape('timestamp must be Unix seconds');
  if (!isObj(b.attestationRequest)) badShape('attestationRequest must be an object');
  if (b.oracleData !== undefined && !isObj(b.oracleData)) badShape('oracleData must be an object');
  return b as unknown as AttestationResponse;
}

/** The attested request must be the one sent (headers compared after masking). */
export function checkRequestEcho(att: AttestationResponse, req: AttestationRequest, attester: string): void {
  const e = att.attestationRequest;
  const diffs: string[] = [];
  const same = (k: string, a: unknown, b: unknown) => {
    if (a !== b) diffs.push(`${k}: sent ${JSON.stringify(b)}, attested ${JSON.stringify(a)}`);
  };
  same('url', e.url, req.url);
  same('requestMethod', e.requestMethod, req.requestMethod);
  same('responseFormat', e.responseFormat, req.responseFormat);
  same('selector', e.selector ?? '', req.selector ?? '');
  same('encodingOptions.value', e.encodingOptions?.value, req.encodingOptions.value);
  if (req.encodingOptions.value === 'float') same('encodingOptions.precision', e.encodingOptions?.precision, req.encodingOptions.precision);
  if (req.responseFormat === 'html') same('htmlResultType', e.htmlResultType, req.htmlResultType);
  if (req.requestMethod === 'POST') {
    same('requestBody', e.requestBody ?? '', req.requestBody ?? '');
    same('requestContentType', e.requestContentType ?? '', req.requestContentType ?? '');
  }
  const sent = maskHeaders(mergeRequestHeaders(req.requestHeaders));
  const got = e.requestHeaders ?? {};
  const keys = new Set([...Object.keys(sent), ...Object.keys(got)]);
  for (const k of keys) same(`requestHeaders.${k}`, got[k], sent[k]);
  if (diffs.length) {
    throw new AttestationIntegrityError('REQUEST_MISMATCH', `attester ${attester} attested another request than the one sent: ${diffs.join('; ')}`, [attester]);
  }
}
