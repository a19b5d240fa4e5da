/**
 * A notarization backend simulator over real HTTP (127.0.0.1), for client and /verify tests.
 * Routes: GET /info, GET /whitelist, POST /notarize (with `debugRequest`). It fetches nothing:
 * the attestation "targets" are configured per test (url without scheme → status + body).
 *
 * Each attestation is fresh and genuine for the test PKIs: the proof data (userData) is encoded
 * with the project's encoder, hashed with Poseidon8 (hashReportData), and bound into
 *   - typeB: a Nitro document minted by typeb-pki (user_data = hash, nonce = 32 random bytes,
 *     also returned hex in `nonce`), or
 *   - typeA: an SGX quote minted by typea-pki (report data = hash ‖ 48 zero bytes) behind the Open
 *     Enclave remote-report header (01000000 02000000 + u64 LE quote length).
 * `oracleData` carries `userData` and `report` as ledger struct texts; the enclave's Schnorr
 * `signature`/`address` are NOT produced (the simulator has no Aleo signing key) and are omitted.
 *
 * Notarizer behaviour reproduced (notarizer-client-ledger.md §1): request validation with the
 * notarizer's numeric codes, whitelist (390), per-target rate limit (391), JSON key-path
 * extraction (221/222/223), 4 KB limit of whole-body attestations (250), float truncation, int
 * check (1001), header masking (`*****` outside the 49 never-masked names), debug requests.
 * HTML extraction is table-driven: a target lists `html[selector] = { element, value }`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { encodeProofData, padProofData } from '../../src/encoding/encode.js';
import { truncateFloatString } from '../../src/encoding/float.js';
import { hashReportData } from '../../src/hash/index.js';
import { formatChunkedStruct } from '../../src/aleo/struct.js';
import { formatPcrStruct, formatProductId, formatUniqueId } from '../../src/aleo/ids.js';
import { parseQuote } from '../../src/attestation/typeA/quote.js';
import { parseTypeB } from '../../src/attestation/typeB/verify.js';
import { typeAView } from '../../src/verify/kinds/typeA/view.js';
import { typeBView } from '../../src/verify/kinds/typeB/view.js';
import { maskHeaders } from '../../src/client/headers.js';
import { RequestValidationError } from '../../src/client/errors.js';
import { validateAttestationRequest } from '../../src/client/validate.js';
import type { AttestationRequest, AttestationResponse } from '../../src/client/types.js';
import { defaultPcrs, type TypeBPki } from './typeb-pki.js';
import type { TestPki } from './typea-pki.js';
import Fastify from 'fastify';
import { readFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { parseCertificate, parsePemChain, type Certificate } from '../../src/attestation/x509/certificate.js';
import { verifyCollateral } from '../../src/attestation/typeA/verify.js';
import { verifyReportBytes, type VerifyDeps } from '../../src/verify/verifyReport.js';
import type { Policy, TargetValues } from '../../src/verify/types.js';
import { verifyRoute, checkAttestationResponse, type ReportVerifier } from '../../src/server/routes/verify.js';
import { AJV_OPTIONS } from '../../src/server/app.js';
import { httpErrorHandler } from '../../src/server/errorResponses.js';

export interface SimTarget {
  status?: number;
  body: string;
  /** HTML extraction table: selector → outer HTML (`element`) and inner text (`value`). */
  html?: Record<string, { element: string; value: string }>;
}

export interface NotarizerSimOptions {
  kind: 'typeA' | 'typeB';
  /** typeB: the PKI minting documents; typeA: the PKI minting quotes. */
  typeB?: TypeBPki;
  typeA?: TestPki;
  /** typeB PCRs (default defaultPcrs()). */
  pcrs?: Uint8Array[];
  /** typeA MRENCLAVE (default 32 × 0x5a). */
  mrEnclave?: Uint8Array;
  whitelist?: string[];
  targets?: Record<string, SimTarget>;
  /** Requests allowed per target host before 391 (default unlimited). */
  perTargetLimit?: number;
}

export interface RecordedNotarize {
  body: Record<string, unknown>;
  contentType: string | undefined;
}

export interface NotarizerSim {
  readonly url: string;
  readonly kind: 'typeA' | 'typeB';
  /** Mutable per test. */
  targets: Map<string, SimTarget>;
  whitelist: string[];
  /** Added to the notarizer clock (seconds) for the attestation timestamps. */
  clockOffsetSeconds: number;
  /** Delay before answering /notarize (ms). */
  delayMs: number;
  /** Edits each successful attestation just before it is sent (tampering tests). */
  tamper: ((att: AttestationResponse) => void) | undefined;
  readonly notarizeRequests: RecordedNotarize[];
  readonly signerPubKey: string;
  close(): Promise<void>;
}

const ALEO_ADDRESS = 'aleo18kstmx5l07vkks6prg9r37vffayvucqdzjwvk8sngp7540q06ugs9cw66m';
const MAX_BODY = 64 * 1024;

class SimError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let n = 0;
    req.on('data', (c: Buffer) => {
      n += c.length;
      if (n > MAX_BODY) {
        reject(new SimError(413, 100, 'request body too large'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** JSON key path `a.b.[0]` → extracted text (strings as is, other values as JSON). */
function extractJson(body: string, selector: string): string {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    throw new SimError(500, 221, 'invalid JSON in the target response', { responseBody: body });
  }
  let cur: unknown = doc;
  for (const seg of selector.split('.')) {
    const idx = /^\[(\d+)\]$/.exec(seg);
    if (idx) {
      if (!Array.isArray(cur) || Number(idx[1]) >= cur.length) throw new SimError(500, 222, `JSON key path ${selector} not found`, { responseBody: body });
      cur = cur[Number(idx[1])];
    } else {
      if (typeof cur !== 'object' || cur === null || Array.isArray(cur) || !(seg in cur)) {
        throw new SimError(500, 222, `JSON key path ${selector} not found`, { responseBody: body });
      }
      cur = (cur as Record<string, unknown>)[seg];
    }
  }
  if (cur === null || cur === '') throw new SimError(500, 223, 'empty JSON value found', { responseBody: body });
  return typeof cur === 'string' ? cur : JSON.stringify(cur);
}

function prepareValue(raw: string, req: AttestationRequest, body: string): string {
  const enc = req.encodingOptions;
  if (enc.value === 'int' && !/^[0-9]+$/.test(raw)) throw new SimError(500, 1001, `${JSON.stringify(raw)} is not an int`, { responseBody: body, extractedData: raw });
  if (enc.value === 'float') {
    if (/^-/.test(raw)) throw new SimError(500, 1009, 'negative float', { responseBody: body, extractedData: raw });
    if (/[eE]/.test(raw)) throw new SimError(500, 1003, 'scientific notation float', { responseBody: body, extractedData: raw });
    if (!/^[0-9]+(\.[0-9]+)?$/.test(raw)) throw new SimError(500, 1004, `${JSON.stringify(raw)} is not a float`, { responseBody: body, extractedData: raw });
    return truncateFloatString(raw, enc.precision ?? 0);
  }
  return raw;
}

function oeRemoteReport(quote: Uint8Array): Uint8Array {
  const out = Buffer.alloc(16 + quote.length);
  out.writeUInt32LE(1, 0);
  out.writeUInt32LE(2, 4);
  out.writeBigUInt64LE(BigInt(quote.length), 8);
  Buffer.from(quote).copy(out, 16);
  return new Uint8Array(out);
}

export async function startNotarizerSim(opts: NotarizerSimOptions): Promise<NotarizerSim> {
  if (opts.kind === 'typeB' && !opts.typeB) throw new Error('typeB simulator needs a typeB PKI');
  if (opts.kind === 'typeA' && !opts.typeA) throw new Error('typeA simulator needs a typeA PKI');
  const pcrs = opts.pcrs ?? defaultPcrs();
  const mrEnclave = opts.mrEnclave ?? new Uint8Array(32).fill(0x5a);
  const perTarget = new Map<string, number>();

  const sim: NotarizerSim = {
    url: '',
    kind: opts.kind,
    targets: new Map(Object.entries(opts.targets ?? {})),
    whitelist: [...(opts.whitelist ?? [])],
    clockOffsetSeconds: 0,
    delayMs: 0,
    tamper: undefined,
    notarizeRequests: [],
    signerPubKey: ALEO_ADDRESS,
    close: async () => {},
  };

  function info(): Record<string, unknown> {
    if (opts.kind === 'typeA') {
      const v = typeAView(parseQuote(opts.typeA!.quote({ mrEnclave })));
      const id = (s: unknown) => Uint8Array.from(Buffer.from(String(s), 'base64'));
      return {
        reportType: 'sgx',
        info: {
          securityVersion: v.securityVersion,
          debug: v.debug,
          uniqueId: v.uniqueId,
          signerId: v.signerId,
          productId: v.productId,
          tcbStatus: 0,
          aleo: { uniqueId: formatUniqueId(id(v.uniqueId)), signerId: formatUniqueId(id(v.signerId)), productId: formatProductId(id(v.productId)) },
        },
        signerPubKey: ALEO_ADDRESS,
      };
    }
    const v = typeBView(parseTypeB(opts.typeB!.mintDocument({ pcrs, userData: null, timestamp: Date.now() })));
    const { protectedCose, signature, ledgerPcrs: _l, publicKey: _p, ...document } = v;
    return {
      reportType: 'nitro',
      info: {
        document: { userData: null, nonce: null, ...document },
        protectedCose,
        signature,
        aleo: { pcrs: formatPcrStruct(pcrs.slice(0, 3)), userData: '0u128' },
      },
      signerPubKey: ALEO_ADDRESS,
    };
  }

  async function notarize(raw: unknown): Promise<{ status: number; body: unknown }> {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new SimError(400, 100, 'bad request structure');
    const { debugRequest, ...rest } = raw as Record<string, unknown>;
    const debug = debugRequest === true;
    let req: AttestationRequest;
    try {
      req = validateAttestationRequest(rest);
    } catch (e) {
      if (e instanceof RequestValidationError) throw new SimError(400, e.errorCode ?? 100, e.message);
      throw e;
    }
    const host = new URL(`https://${req.url}`).hostname.toLowerCase();
    if (!sim.whitelist.some((h) => h.toLowerCase() === host)) throw new SimError(400, 390, `target ${host} is not whitelisted`);
    const used = (perTarget.get(host) ?? 0) + 1;
    perTarget.set(host, used);
    if (opts.perTargetLimit !== undefined && used > opts.perTargetLimit) throw new SimError(429, 391, `rate limit for ${host} reached`);
    const target = sim.targets.get(req.url);
    if (!target) throw new SimError(500, 202, `failed to execute the target request to ${req.url}`);
    const status = target.status ?? 200;
    let extracted: string;
    if (!req.selector) {
      if (Buffer.byteLength(target.body) > 4096) throw new SimError(500, 250, 'extracted data is larger than 4 KB', { responseBody: target.body });
      extracted = target.body;
    } else if (req.responseFormat === 'json') {
      extracted = extractJson(target.body, req.selector);
    } else {
      const hit = target.html?.[req.selector];
      if (!hit) throw new SimError(500, 212, `XPath element ${req.selector} not found`, { responseBody: target.body });
      extracted = req.htmlResultType === 'element' ? hit.element : hit.value;
    }
    if (debug) {
      try {
        prepareValue(extracted, req, target.body);
      } catch (e) {
        if (e instanceof SimError) throw new SimError(e.status, e.errorCode, e.message, { ...e.extra, responseStatusCode: status });
        throw e;
      }
      return { status: 200, body: { responseBody: target.body, responseStatusCode: status, extractedData: extracted } };
    }
    const attestationData = prepareValue(extracted, req, target.body);
    const masked = maskHeaders(req.requestHeaders);
    const echo: AttestationRequest = {
      url: req.url,
      requestMethod: req.requestMethod,
      ...(req.selector ? { selector: req.selector } : {}),
      responseFormat: req.responseFormat,
      ...(req.htmlResultType ? { htmlResultType: req.htmlResultType } : {}),
      ...(req.requestBody ? { requestBody: req.requestBody } : {}),
      ...(req.requestContentType ? { requestContentType: req.requestContentType } : {}),
      ...(Object.keys(masked).length ? { requestHeaders: masked } : {}),
      encodingOptions: { value: req.encodingOptions.value, precision: req.encodingOptions.precision ?? 0 },
    };
    const timestamp = Math.floor(Date.now() / 1000) + sim.clockOffsetSeconds;
    const userData = padProofData(
      encodeProofData({
        ...echo,
        selector: echo.selector ?? '',
        encodingOptions: { value: echo.encodingOptions.value, precision: echo.encodingOptions.precision ?? 0 },
        attestationData,
        responseStatusCode: status,
        timestamp,
      }),
    );
    const bound = hashReportData(userData);
    let report: Uint8Array;
    let nonce: string | undefined;
    if (opts.kind === 'typeB') {
      const n = randomBytes(32);
      nonce = n.toString('hex');
      report = opts.typeB!.mintDocument({ pcrs, userData: bound, nonce: new Uint8Array(n), timestamp: Date.now() });
    } else {
      const reportData = new Uint8Array(64);
      reportData.set(bound);
      report = oeRemoteReport(opts.typeA!.quote({ mrEnclave, reportData }));
    }
    const padded = new Uint8Array(5120);
    padded.set(report);
    const att: AttestationResponse = {
      attestationReport: Buffer.from(report).toString('base64'),
      reportType: opts.kind === 'typeA' ? 'sgx' : 'nitro',
      attestationData,
      responseBody: target.body,
      responseStatusCode: status,
      ...(nonce ? { nonce } : {}),
      timestamp,
      attestationRequest: echo,
      oracleData: {
        userData: formatChunkedStruct(userData, 8, 'reference'),
        report: formatChunkedStruct(padded, 10, 'reference'),
      },
    };
    sim.tamper?.(att);
    return { status: 200, body: att };
  }

  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0];
      try {
        if (req.method === 'GET' && path === '/info') return send(res, 200, info());
        if (req.method === 'GET' && path === '/whitelist') return send(res, 200, sim.whitelist);
        if (path === '/notarize') {
          if (req.method !== 'POST') return send(res, 405, { errorMessage: 'method not allowed', errorCode: 100 });
          const ct = req.headers['content-type'];
          const text = await readBody(req);
          if (!ct?.startsWith('application/json')) return send(res, 415, { errorMessage: 'Content-Type must be application/json', errorCode: 100 });
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            throw new SimError(400, 100, 'bad request structure: invalid JSON');
          }
          sim.notarizeRequests.push({ body: body as Record<string, unknown>, contentType: ct });
          // unref: a long delay left pending at the end of a test does not keep the process alive
          if (sim.delayMs > 0) await new Promise((r) => setTimeout(r, sim.delayMs).unref());
          const out = await notarize(body);
          return send(res, out.status, out.body);
        }
        return send(res, 404, { errorMessage: 'not found', errorCode: 100 });
      } catch (e) {
        if (e instanceof SimError) return send(res, e.status, { errorMessage: e.message, errorCode: e.errorCode, ...e.extra });
        return send(res, 500, { errorMessage: `internal: ${(e as Error).message}`, errorCode: 1 });
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  (sim as { url: string }).url = `http://127.0.0.1:${port}`;
  sim.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return sim;
}

// ---------- a verification backend with the real /verify route, for the test PKIs ----------
export interface VerificationBackend {
  readonly url: string;
  /** Number of (userData, report) verifications run. */
  readonly calls: () => number;
  close(): Promise<void>;
}

function bundledRoot(file: string): Certificate {
  return parsePemChain(readFileSync(resolvePath(process.cwd(), 'trust', file), 'utf8'))[0]!;
}

/**
 * Starts a Fastify app with the real /verify route plugin whose verifier runs the verification
 * core in process, trusting the given test PKIs (typeA at the PKI's time with its collateral).
 */
export async function startVerificationBackend(o: {
  typeA?: TestPki;
  typeB?: TypeBPki;
  targets?: Partial<TargetValues>;
}): Promise<VerificationBackend> {
  const policy: Policy = {
    targets: { typeA: new Uint8Array(32).fill(0x5a), typeB: defaultPcrs().slice(0, 3), ...o.targets },
    acceptedTcbStatuses: ['UpToDate', 'SWHardeningNeeded'],
    allowDebugEnclaves: false,
  };
  const typeARoot = o.typeA ? o.typeA.root.cert : bundledRoot('intel-sgx-root-ca.pem');
  const deps: VerifyDeps = {
    roots: { typeA: typeARoot, typeB: o.typeB ? parseCertificate(o.typeB.rootDer) : bundledRoot('aws-nitro-enclaves-root-g1.pem') },
    ...(o.typeA
      ? { collateral: { forReport: async (_q: unknown, time: number) => verifyCollateral(o.typeA!.collateral, { root: typeARoot, time }) }, time: o.typeA.time }
      : {}),
  };
  let calls = 0;
  const verifier: ReportVerifier = async (userData, report, opts) => {
    calls++;
    return verifyReportBytes(userData, report, policy, deps, opts);
  };
  const app = Fastify({ logger: false, ajv: AJV_OPTIONS });
  app.setErrorHandler(httpErrorHandler);
  await app.register(verifyRoute((entry) => checkAttestationResponse(entry, verifier)));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, calls: () => calls, close: () => app.close() };
}
