/**
 * A PCCS-compatible HTTP server (Intel PCS / PCCS API v4 routes) serving recorded or minted
 * collateral, for tests. Runs in-process (startPccsServer) or as its own process
 * (`node --import tsx test/support/pccs-server.ts BUNDLE.json`, printing `PCCS_URL=<url>`).
 *
 * Routes under /sgx/certification/v4/: pckcrl?ca=processor|platform[&encoding=der],
 * tcb?fmspc=[&tcbEvaluationDataNumber=], qe/identity[?tcbEvaluationDataNumber=], tcbevaluationdatanumbers,
 * rootcacrl. Issuer chains go in the response headers, URL-encoded,
 * as PCCS does. CRLs are served as hex text unless encoding=der, like PCCS.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { streamBody, type StreamedBody } from './stream-body.js';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { Collateral } from '../../src/attestation/typeA/collateral.js';

export interface SignedBody {
  /** The exact response body, e.g. {"tcbInfo":{…},"signature":"…"}. */
  body: string;
  /** PEM chain [TCB Signing, root]. */
  issuerChain: string;
}

export interface PccsBundle {
  tcbInfo: Record<string, SignedBody>;
  qeIdentity: SignedBody;
  pckCrl: Partial<Record<'processor' | 'platform', { derHex: string; issuerChain: string }>>;
  rootCaCrlHex: string;
  /**
   * TCB evaluations by number (Intel PCS v4): `tcbevaluationdatanumbers` serves `list`;
   * `tcb?fmspc=…&tcbEvaluationDataNumber=N` and `qe/identity?tcbEvaluationDataNumber=N` serve
   * those of N, 410 for a number in `gone`, else 404; with `update` as well, 400.
   */
  evaluations?: {
    list?: SignedBody;
    tcbInfo?: Record<number, Record<string, SignedBody>>;
    qeIdentity?: Record<number, SignedBody>;
    gone?: number[];
  };
}

/** `until`: the answer waits for this promise (a test holds a request open until it releases it). */
export type Behaviour = {
  status: number;
  body?: string;
  delayMs?: number;
  until?: Promise<unknown>;
  headers?: Record<string, string>;
  /** Instead of `body`: `bytes` bytes (Infinity: without end) written as the peer reads them, Content-Length declared or not. */
  stream?: { bytes: number; declareLength: boolean };
};

export interface PccsServer {
  url: string;
  /** Requests received, e.g. "GET /sgx/certification/v4/tcb?fmspc=00906ed50000". */
  requests: string[];
  /** Queue behaviours for the next requests whose path starts with `pathPrefix` (after v4/). */
  inject(pathPrefix: string, ...behaviours: Behaviour[]): void;
  /** Drops behaviours queued by inject() that were not used. */
  clearInjected(): void;
  /** Resolves once a request received from now on whose line matches has been answered in full. */
  nextAnswered(match: (request: string) => boolean): Promise<string>;
  setBundle(b: PccsBundle): void;
  /** Every streamed body so far: bytes handed to the socket, and whether its connection has closed. */
  streamed: StreamedBody[];
  close(): Promise<void>;
}

const V4 = '/sgx/certification/v4/';

export async function startPccsServer(initial: PccsBundle, opts: { apiKey?: string } = {}): Promise<PccsServer> {
  let bundle = initial;
  const requests: string[] = [];
  const injected: { prefix: string; b: Behaviour }[] = [];
  const waiters = new Set<{ match: (request: string) => boolean; done: (request: string) => void }>();
  const streamed: StreamedBody[] = [];

  const send = (res: ServerResponse, status: number, body: string | Buffer, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-length': Buffer.byteLength(body), ...headers });
    res.end(body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const line = `${req.method} ${u.pathname}${u.search}`;
    requests.push(line);
    const interested = [...waiters].filter((w) => w.match(line));
    for (const w of interested) waiters.delete(w);
    res.once('finish', () => interested.forEach((w) => w.done(line)));
    if (!u.pathname.startsWith(V4)) return send(res, 404, 'not found');
    const route = u.pathname.slice(V4.length);
    const i = injected.findIndex((x) => route.startsWith(x.prefix));
    if (i >= 0) {
      const { b } = injected.splice(i, 1)[0]!;
      if (b.delayMs) await new Promise((r) => setTimeout(r, b.delayMs));
      if (b.until) await b.until;
      if (b.status === 0) return req.socket.destroy();
      if (b.stream) return void streamed.push(streamBody(res, b.status, b.stream.bytes, b.stream.declareLength, b.headers));
      return send(res, b.status, b.body ?? '', b.headers);
    }
    if (opts.apiKey && req.headers['ocp-apim-subscription-key'] !== opts.apiKey) return send(res, 401, 'unauthorized');
    if (req.method !== 'GET') return send(res, 405, 'method not allowed');
    const chainHeader = (pem: string) => encodeURIComponent(pem);
    const numberParam = u.searchParams.get('tcbEvaluationDataNumber');
    if (numberParam !== null && (u.searchParams.has('update') || !/^\d+$/.test(numberParam))) return send(res, 400, '');
    const n = numberParam === null ? undefined : Number(numberParam);
    const gone = n !== undefined && (bundle.evaluations?.gone ?? []).includes(n);
    switch (route) {
      case 'tcb': {
        const fmspc = (u.searchParams.get('fmspc') ?? '').toLowerCase();
        if (gone) return send(res, 410, '');
        const t = n === undefined ? bundle.tcbInfo[fmspc] : bundle.evaluations?.tcbInfo?.[n]?.[fmspc];
        if (!t) return send(res, 404, '');
        return send(res, 200, t.body, { 'content-type': 'application/json', 'TCB-Info-Issuer-Chain': chainHeader(t.issuerChain) });
      }
      case 'qe/identity': {
        if (gone) return send(res, 410, '');
        const q = n === undefined ? bundle.qeIdentity : bundle.evaluations?.qeIdentity?.[n];
        if (!q) return send(res, 404, '');
        return send(res, 200, q.body, {
          'content-type': 'application/json',
          'SGX-Enclave-Identity-Issuer-Chain': chainHeader(q.issuerChain),
        });
      }
      case 'tcbevaluationdatanumbers': {
        const l = bundle.evaluations?.list;
        if (!l) return send(res, 404, '');
        return send(res, 200, l.body, { 'content-type': 'application/json', 'TCB-Evaluation-Data-Numbers-Issuer-Chain': chainHeader(l.issuerChain) });
      }
      case 'pckcrl': {
        const ca = u.searchParams.get('ca');
        const c = ca === 'processor' || ca === 'platform' ? bundle.pckCrl[ca] : undefined;
        if (!c) return send(res, 404, '');
        const der = u.searchParams.get('encoding') === 'der';
        return send(res, 200, der ? Buffer.from(c.derHex, 'hex') : c.derHex, {
          'content-type': der ? 'application/pkix-crl' : 'application/x-pem-file',
          'SGX-PCK-CRL-Issuer-Chain': chainHeader(c.issuerChain),
        });
      }
      case 'rootcacrl':
        return send(res, 200, bundle.rootCaCrlHex, { 'content-type': 'application/x-pem-file' });
      default:
        return send(res, 404, 'not found');
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => send(res, 500, 'internal'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  if (!addr || typeof addr === 'string') throw new Error('no address');
  return {
    url: `http://127.0.0.1:${addr.port}${V4}`,
    requests,
    inject: (prefix, ...bs) => injected.push(...bs.map((b) => ({ prefix, b }))),
    clearInjected: () => {
      injected.length = 0;
    },
    nextAnswered: (match) => new Promise<string>((done) => void waiters.add({ match, done })),
    setBundle: (b) => {
      bundle = b;
    },
    streamed,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The real Intel PCS collateral recorded on 2026-09-22 (../shared/vectors/sgx/intel-pcs-2026-09-22). */
export function recordedBundle2026(vectorsDir: string): PccsBundle {
  const dir = `${vectorsDir}/sgx/intel-pcs-2026-09-22`;
  const read = (f: string) => readFileSync(`${dir}/${f}`, 'utf8');
  const tcbChain = read('tcb_signing_issuer_chain.pem');
  const derived = JSON.parse(readFileSync(`${vectorsDir}/sgx/derived-collateral/oracle-sgx-report.collateral-2026-09-22.json`, 'utf8')) as {
    pck_crl_issuer_chain: string;
  };
  return {
    tcbInfo: {
      '00906ed50000': { body: read('tcb_info_00906ed50000.json').trim(), issuerChain: tcbChain },
      '00a067110000': { body: read('tcb_info_00a067110000.json').trim(), issuerChain: tcbChain },
    },
    qeIdentity: { body: read('qe_identity.json').trim(), issuerChain: tcbChain },
    pckCrl: { processor: { derHex: read('pck_crl_processor.der.hex').trim(), issuerChain: derived.pck_crl_issuer_chain } },
    rootCaCrlHex: read('root_ca_crl.der.hex').trim(),
  };
}

/** A bundle serving one collateral set (e.g. a test PKI's) as the PCCS would, FMSPC 00906ed50000 / processor CA. */
export function bundleFromCollateral(c: Collateral, fmspc = '00906ed50000'): PccsBundle {
  const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
  return {
    tcbInfo: { [fmspc.toLowerCase()]: { body: `{"tcbInfo":${c.tcbInfoRaw},"signature":"${c.tcbInfoSignature}"}`, issuerChain: c.tcbInfoIssuerChain } },
    qeIdentity: { body: `{"enclaveIdentity":${c.qeIdentityRaw},"signature":"${c.qeIdentitySignature}"}`, issuerChain: c.qeIdentityIssuerChain },
    pckCrl: { processor: { derHex: hex(c.pckCrl), issuerChain: c.pckCrlIssuerChain } },
    rootCaCrlHex: hex(c.rootCaCrl),
  };
}

// Stand-alone process mode.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: pccs-server.ts BUNDLE.json\n');
    process.exit(2);
  }
  const bundle = JSON.parse(readFileSync(file, 'utf8')) as PccsBundle;
  const s = await startPccsServer(bundle);
  process.stdout.write(`PCCS_URL=${s.url}\n`);
  const stop = () => void s.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
