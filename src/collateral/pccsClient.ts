/**
 * Client of the PCCS / Intel PCS API v4 (`…/sgx/certification/v4/`). It fetches raw collateral
 * and returns it exactly as served: CRLs as DER (hex or DER bodies accepted), issuer chains from
 * the URL-encoded response headers (decodeURIComponent, never form decoding), signed JSON bodies
 * as text so that the signed substring can be cut out without re-serialising. Every request has a
 * timeout; network errors, 429 and 5xx are retried a bounded number of times with backoff. With a
 * circuit breaker (pccsCircuit.ts), a PCCS that gave no answer is not asked again during its
 * cool-down: requests fail at once with PCCS_UNAVAILABLE saying until when.
 */
import { publicUrl, redactorOf, redirectTarget, secretsOf } from '../upstream/publicUrl.js';
import { VerifierError } from '../errors.js';
import { ByteBudget, readCapped } from '../upstream/body.js';
import type { PccsCode } from './errors.js';
import type { PccsCircuit } from './pccsCircuit.js';

export interface PccsClientOptions {
  /** Base URL ending in `/sgx/certification/v4/`. */
  baseUrl: string;
  timeoutMs?: number;
  /** Retries after the first attempt (default 2). */
  retries?: number;
  backoffMs?: number;
  /** Intel PCS subscription key (sent as Ocp-Apim-Subscription-Key); PCCS does not need it. */
  apiKey?: string;
  fetchImpl?: typeof fetch;
  /** Where the root CA CRL is read when the service has no `rootcacrl` route (Intel PCS). */
  rootCaCrlUrl?: string;
  /** Called after each HTTP exchange (metrics, PCCS reachability); `detail` says why there was no response. */
  onRequest?: PccsRequestListener;
  /** The circuit breaker every request to the PCCS (not to other hosts) passes through. */
  circuit?: PccsCircuit;
  /** Bytes of PCCS bodies held at once (default PCCS_BODY_BUDGET, shared by the process). */
  bodyBudget?: ByteBudget;
}

/** One HTTP exchange with the PCCS: route, HTTP status or `error` (no response, `detail` says why), time taken. */
export type PccsRequestListener = (route: string, status: number | 'error', ms: number, detail?: string) => void;

export interface SignedJson {
  body: string;
  issuerChain: string;
}

export type PckCa = 'processor' | 'platform';

/** Largest body accepted from the PCCS (a TCB info is some kB, a CRL some hundred kB): read as a stream and abandoned beyond it. */
const MAX_BODY = 4 * 1024 * 1024;
/** The process's budget for PCCS bodies being read at once: four at the cap. */
export const PCCS_BODY_BUDGET = new ByteBudget(4 * MAX_BODY);

/** CRL distribution point of the Intel SGX Root CA certificate. */
export const INTEL_ROOT_CA_CRL_URL = 'https://certificates.trustedservices.intel.com/IntelSGXRootCA.der';

function fail(code: PccsCode, message: string, cause?: unknown): never {
  throw new VerifierError<PccsCode>(code, message, cause === undefined ? undefined : { cause });
}

export class PccsClient {
  private readonly base: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly fetchImpl: typeof fetch;
  /** What messages may show of a text: URLs without query, the base's query values and the API key redacted. */
  private readonly show: (text: string) => string;
  private readonly budget: ByteBudget;

  constructor(private readonly opts: PccsClientOptions) {
    this.base = opts.baseUrl.endsWith('/') ? opts.baseUrl : `${opts.baseUrl}/`;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.retries = opts.retries ?? 2;
    this.backoffMs = opts.backoffMs ?? 250;
    this.fetchImpl = opts.fetchImpl ?? fetch;
    this.budget = opts.bodyBudget ?? PCCS_BODY_BUDGET;
    this.show = redactorOf(secretsOf(this.base, opts.apiKey ? { key: opts.apiKey } : {}));
  }

  /** The base URL, ending in '/'. */
  get baseUrl(): string {
    return this.base;
  }

  /** The circuit breaker, when there is one. */
  get circuit(): PccsCircuit | undefined {
    return this.opts.circuit;
  }

  /** GET with timeout and bounded retries; returns status 200 bodies only. */
  private async get(route: string): Promise<{ body: Uint8Array; headers: Headers }> {
    const url = new URL(route, this.base).toString();
    const what = `PCCS ${route.split('?')[0]}`;
    // what messages show: the configured base without credentials or query, then our own route
    const shown = `${publicUrl(this.base)}${route}`;
    let last = '';
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, this.backoffMs * 2 ** (attempt - 1)));
      const x = await this.exchange(route, url, this.timeoutMs);
      if ('refused' in x) fail('PCCS_UNAVAILABLE', `${what}: PCCS unavailable at ${shown}: ${x.refused}${last ? ` (last attempt: ${last})` : ''}`);
      if ('failure' in x) {
        last = x.failure;
        continue;
      }
      const { res, buf } = x;
      if (res.status === 200) {
        if (buf === 'tooLarge') fail('PCCS_BAD_RESPONSE', `${what}: response body over the ${MAX_BODY}-byte limit (abandoned at the limit) from ${shown}`);
        if (buf === 'overBudget') {
          last = `answer abandoned: PCCS bodies being read already hold the process's budget of ${this.budget.limit} bytes`;
          continue;
        }
        return { body: buf, headers: res.headers };
      }
      if (res.status >= 300 && res.status < 400) fail('PCCS_HTTP_ERROR', `${what}: HTTP ${res.status} from ${shown}, a redirect${redirectTarget(res.headers.get('location'))} that is not followed (the PCCS's API key would go with it): set pccsUrl to the address the PCCS serves on`);
      if (res.status === 404) fail('PCCS_NOT_FOUND', `${what}: not found (404) at ${shown}`);
      // Intel PCS v4: a TCB evaluation data number no longer served.
      if (res.status === 410) fail('PCCS_NOT_FOUND', `${what}: no longer available (410) at ${shown}`);
      if (res.status === 429 || res.status >= 500) {
        last = `HTTP ${res.status}`;
        continue;
      }
      fail('PCCS_HTTP_ERROR', `${what}: HTTP ${res.status} from ${shown}`);
    }
    fail('PCCS_UNAVAILABLE', `${what}: PCCS unavailable after ${this.retries + 1} attempts (${last}) at ${shown}`);
  }

  /**
   * One GET, body read in full, reported through onRequest; a request without response gives its
   * reason; a request to the PCCS the circuit breaker holds back is not sent (`refused` says why).
   */
  private async exchange(route: string, url: string, timeoutMs: number): Promise<{ res: Response; buf: Uint8Array | 'tooLarge' | 'overBudget' } | { failure: string } | { refused: string }> {
    // Absolute URLs are other hosts (Intel's root CA CRL distribution point): not the PCCS's circuit.
    const circuit = /^[a-z][a-z0-9+.-]*:\/\//i.test(route) ? undefined : this.opts.circuit;
    const ticket = circuit?.admit();
    if (ticket && 'refused' in ticket) return { refused: ticket.refused };
    const t0 = performance.now();
    let res: Response;
    try {
      res = await this.fetchImpl(url, {
        headers: this.opts.apiKey ? { 'Ocp-Apim-Subscription-Key': this.opts.apiKey } : {},
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (e) {
      const failure = noResponseReason(e, timeoutMs, this.show);
      if (ticket) circuit!.failed(ticket, failure);
      this.opts.onRequest?.(route, 'error', performance.now() - t0, failure);
      return { failure };
    }
    if (ticket) circuit!.answered(ticket);
    // Read as a stream, abandoned at the cap or when the budget has no room (only 200 bodies are used).
    const body = await readCapped(res, res.status === 200 ? MAX_BODY : 4096, res.status === 200 ? this.budget : undefined).catch(() => undefined);
    this.opts.onRequest?.(route, res.status, performance.now() - t0);
    if (body === undefined) return { res, buf: new Uint8Array(0) };
    if (!body.ok) return { res, buf: body.reason };
    // The budget's hold ends here: the caller parses the body (at most MAX_BODY) at once.
    body.release();
    return { res, buf: new Uint8Array(body.bytes.buffer, body.bytes.byteOffset, body.bytes.length) };
  }

  /**
   * Whether the service answers at all: one GET of `rootcacrl` (small; Intel's PCS answers it with
   * 404), no retries, at most `timeoutMs`. The outcome goes to onRequest like every request; it
   * passes through the circuit breaker (when half-open it is the probe that may close it) and
   * throws PCCS_UNAVAILABLE, sending nothing, while the circuit holds requests back.
   */
  async probe(timeoutMs: number): Promise<void> {
    const x = await this.exchange('rootcacrl', new URL('rootcacrl', this.base).toString(), timeoutMs);
    if ('refused' in x) fail('PCCS_UNAVAILABLE', `PCCS probe not sent: ${x.refused}`);
  }

  private chainHeader(headers: Headers, names: string[], what: string): string {
    for (const n of names) {
      const v = headers.get(n);
      if (v) {
        let pem: string;
        try {
          pem = decodeURIComponent(v);
        } catch {
          fail('PCCS_BAD_RESPONSE', `${what}: header ${n} is not valid URL encoding`);
        }
        if (!pem.includes('-----BEGIN CERTIFICATE-----')) fail('PCCS_BAD_RESPONSE', `${what}: header ${n} holds no PEM certificate`);
        return pem;
      }
    }
    return fail('PCCS_BAD_RESPONSE', `${what}: issuer chain header missing (expected ${names.join(' or ')})`);
  }

  async pckCrl(ca: PckCa): Promise<{ der: Uint8Array; issuerChain: string }> {
    const { body, headers } = await this.get(`pckcrl?ca=${ca}&encoding=der`);
    return { der: crlBytes(body, `PCCS pckcrl?ca=${ca}`), issuerChain: this.chainHeader(headers, ['SGX-PCK-CRL-Issuer-Chain'], `PCCS pckcrl?ca=${ca}`) };
  }

  /**
   * The Intel SGX Root CA CRL. PCCS serves it at `rootcacrl` (hex of DER); Intel's PCS has no such
   * route, so on 404 it is read from the root certificate's CRL distribution point.
   */
  async rootCaCrl(): Promise<Uint8Array> {
    try {
      const { body } = await this.get('rootcacrl');
      return crlBytes(body, 'PCCS rootcacrl');
    } catch (e) {
      if (!(e instanceof VerifierError) || e.code !== 'PCCS_NOT_FOUND') throw e;
    }
    const { body } = await this.get(this.opts.rootCaCrlUrl ?? INTEL_ROOT_CA_CRL_URL);
    return crlBytes(body, 'Intel SGX Root CA CRL');
  }

  /** The TCB info of `fmspc`: the default evaluation (no `update`: the standard channel), or that of `evaluation` (`tcbEvaluationDataNumber`). */
  async tcbInfo(fmspc: string, evaluation?: number): Promise<SignedJson> {
    if (!/^[0-9a-fA-F]{12}$/.test(fmspc)) fail('PCCS_BAD_RESPONSE', `FMSPC ${JSON.stringify(fmspc)} is not 6 bytes of hex`);
    const { body, headers } = await this.get(`tcb?fmspc=${fmspc.toLowerCase()}${evaluationParam(evaluation, '&')}`);
    return { body: utf8(body, 'PCCS tcb'), issuerChain: this.chainHeader(headers, ['TCB-Info-Issuer-Chain', 'SGX-TCB-Info-Issuer-Chain'], 'PCCS tcb') };
  }

  /** The QE identity: the default evaluation, or that of `evaluation`. */
  async qeIdentity(evaluation?: number): Promise<SignedJson> {
    const { body, headers } = await this.get(`qe/identity${evaluationParam(evaluation, '?')}`);
    return { body: utf8(body, 'PCCS qe/identity'), issuerChain: this.chainHeader(headers, ['SGX-Enclave-Identity-Issuer-Chain'], 'PCCS qe/identity') };
  }

  /** Intel's signed list of the TCB evaluation data numbers it serves (PCS v4 `tcbevaluationdatanumbers`). */
  async tcbEvaluations(): Promise<SignedJson> {
    const { body, headers } = await this.get('tcbevaluationdatanumbers');
    return { body: utf8(body, 'PCCS tcbevaluationdatanumbers'), issuerChain: this.chainHeader(headers, ['TCB-Evaluation-Data-Numbers-Issuer-Chain'], 'PCCS tcbevaluationdatanumbers') };
  }
}

function evaluationParam(evaluation: number | undefined, sep: '?' | '&'): string {
  if (evaluation === undefined) return '';
  if (!Number.isSafeInteger(evaluation) || evaluation < 0) fail('PCCS_BAD_RESPONSE', `TCB evaluation data number ${evaluation} is not a whole number`);
  return `${sep}tcbEvaluationDataNumber=${evaluation}`;
}

/** `scheme://user:pass@host/path?query#x` → `scheme://host/path`: a URL fit to show. */
export { publicUrl } from '../upstream/publicUrl.js';

/** Why a request got no response: the timeout, or the connection failure with its cause (URLs in it without credentials and query). */
function noResponseReason(e: unknown, timeoutMs: number, show: (text: string) => string): string {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  const cause = err?.cause?.code ?? err?.cause?.message;
  const text = `${err?.message ?? String(e)}${cause ? `: ${cause}` : ''}`;
  return `connection failed (${show(text)})`;
}

function utf8(b: Uint8Array, what: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(b);
  } catch {
    return fail('PCCS_BAD_RESPONSE', `${what}: body is not UTF-8`);
  }
}

/** A CRL body as served: DER, hex of DER (PCCS), or PEM. */
export function crlBytes(body: Uint8Array, what: string): Uint8Array {
  if (body.length > 0 && body[0] === 0x30) return body;
  const text = utf8(body, what).trim();
  if (/^([0-9a-fA-F]{2})+$/.test(text)) return Uint8Array.from(Buffer.from(text, 'hex'));
  const m = /^-----BEGIN X509 CRL-----\s*([A-Za-z0-9+/=\s]+)-----END X509 CRL-----$/.exec(text);
  if (m) return Uint8Array.from(Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64'));
  return fail('PCCS_BAD_RESPONSE', `${what}: body is neither DER, hex nor PEM (${body.length} bytes)`);
}
