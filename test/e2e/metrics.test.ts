/**
 * GET /metrics of a real app (buildApp with the real routes and the real verification core) over a
 * real socket: real requests move exactly the counters and labels they should, route labels are
 * templates (never raw URLs), and decodeReport outcomes arrive by kind, outcome and failure code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { ErrorCode } from '../../src/errorCodes.js';
import { buildApp } from '../../src/server/app.js';
import { buildInfoRecord } from '../../src/server/info.js';
import { createInProcessService } from '../../src/verify/service.js';
import { loadTrustRoot } from '../../src/attestation/trustRoots.js';
import { reportKind } from '../../src/verify/kinds/index.js';
import { DEFAULT_TRUST_ROOTS } from '../../src/config/defaultTrustRoots.js';
import { ChainCache } from '../../src/attestation/x509/chainCache.js';
import { createMetrics, instrumentService, type Metrics } from '../../src/observability/metrics.js';
import { metricsPlugin } from '../../src/server/metricsPlugin.js';
import type { VerifierService } from '../../src/verify/types.js';
import { VerifierError } from '../../src/errors.js';
import { readVectorJson } from '../support/paths.js';
import { postJson } from '../support/server.js';
import { expectedKernelName } from '../support/expectedKernel.js';
import { execFileSync } from 'node:child_process';
import { nativeKernels } from '../../src/hash/poseidon8-native.js';

const examples = readVectorJson<any>('aleo/e2e/readme-decodeReport-examples.json');
const attestationResponse = readVectorJson<any>('aleo/e2e/docs-example_btc_usdc_attestation_nitro.json');
const decodeReq = readVectorJson<any>('aleo/decode-example.request.json');
const manifest = readVectorJson<any>('nitro/manifest.json');
const targets = readVectorJson<any>('production-targets.json');
const oracleDoc = manifest.vectors.find((v: any) => v.file === 'oracle-nitro-report.hex');

/** One sample line of the text exposition format. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`unparsable exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the one sample with this name and exactly these labels (undefined when absent). */
function value(samples: Sample[], name: string, labels: Record<string, string>): number | undefined {
  const want = Object.entries(labels).sort();
  const hits = samples.filter((s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === JSON.stringify(want));
  if (hits.length > 1) throw new Error(`${name} ${JSON.stringify(labels)}: ${hits.length} samples`);
  return hits[0]?.value;
}

/** Changes one u128 value of a struct text (field `fN` of chunk `cM`) to another valid value. */
function tweak(text: string, chunk: number, field: number): string {
  const re = new RegExp(`(c${chunk}:\\s*\\{[^}]*?\\bf${field}:\\s*)(\\d+)u128`);
  const m = re.exec(text);
  if (!m) throw new Error('field not found');
  const v = BigInt(m[2]!);
  return text.replace(re, `$1${v === 0n ? 1n : v - 1n}u128`);
}

describe('GET /metrics on the real app', () => {
  let app: FastifyInstance;
  let url: string;
  let metrics: Metrics;
  const chainCache = new ChainCache();

  beforeAll(async () => {
    metrics = createMetrics();
    const roots = {
      typeA: loadTrustRoot('typeA', DEFAULT_TRUST_ROOTS.typeA, { pinnedSha256: reportKind('typeA').bundledRoot.sha256 }),
      typeB: loadTrustRoot('typeB', DEFAULT_TRUST_ROOTS.typeB, { pinnedSha256: reportKind('typeB').bundledRoot.sha256 }),
    };
    const uniqueId = Uint8Array.from(Buffer.from(targets.uniqueIdTarget, 'base64'));
    const pcrs = [oracleDoc.pcr0, oracleDoc.pcr1, oracleDoc.pcr2].map((h: string) => Uint8Array.from(Buffer.from(h, 'hex')));
    const policy = { targets: { typeA: uniqueId, typeB: pcrs }, acceptedTcbStatuses: ['UpToDate', 'SWHardeningNeeded'] as const, allowDebugEnclaves: false };
    const service = instrumentService(createInProcessService(policy, { roots, chainCache }), metrics.sink);
    metrics.sink.registerCacheStats('x509_chain', () => ({ hits: chainCache.hits, misses: chainCache.misses, size: chainCache.size }));
    app = await buildApp({ service, info: buildInfoRecord({ typeA: uniqueId, typeB: pcrs }, 'official_oracle.aleo', Date.now()) });
    // Hooks are attached to routes at ready(), so registering after the routes still times them all.
    await app.register(metricsPlugin(metrics));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const addr = app.server.address();
    if (!addr || typeof addr === 'string') throw new Error('no address');
    url = `http://127.0.0.1:${addr.port}`;
  });
  afterAll(async () => {
    await app?.close();
  });

  async function scrape(): Promise<Sample[]> {
    const r = await fetch(`${url}/metrics`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseExposition(await r.text());
  }

  it('starts with no HTTP or verification samples and the default process metrics prefixed verifier_', async () => {
    const s = await scrape();
    expect(s.filter((x) => x.name === 'verifier_http_requests_total')).toEqual([]);
    expect(s.filter((x) => x.name === 'verifier_verifications_total')).toEqual([]);
    const names = new Set(s.map((x) => x.name));
    for (const n of ['verifier_nodejs_eventloop_lag_seconds', 'verifier_nodejs_eventloop_lag_p99_seconds', 'verifier_process_cpu_user_seconds_total', 'verifier_nodejs_heap_size_used_bytes']) {
      expect(names.has(n), n).toBe(true);
    }
    expect([...names].filter((n) => n.startsWith('nodejs_') || n.startsWith('process_'))).toEqual([]);
  });

  it('counts real requests by route template, method and status, and verification outcomes by kind and code', async () => {
    // /info twice
    for (let i = 0; i < 2; i++) expect((await fetch(`${url}/info`)).status).toBe(200);
    // /decode: the README example, a struct that does not decode, and unreadable JSON
    const good = await postJson(`${url}/decode`, decodeReq);
    expect(good.status).toBe(200);
    expect(good.body.success).toBe(true);
    const bad = await postJson(`${url}/decode`, { userData: '{ c0: { f0: 1u128 } }' });
    expect(bad.body.success).toBe(false);
    expect(bad.body.errorCode).toBe('STRUCT_FIELD_COUNT');
    const broken = await postJson(`${url}/decode`, '{"userData": ');
    expect(broken.status).toBe(400);
    // /decodeReport: the real Nitro example (valid), the same report with other userData (invalid), garbage (invalid, unknown kind)
    const valid = await postJson(`${url}/decodeReport`, examples.nitro.request);
    expect(valid.body.reportValid).toBe(true);
    const valid2 = await postJson(`${url}/decodeReport`, examples.nitro.request);
    expect(valid2.body.reportValid).toBe(true);
    const mismatch = await postJson(`${url}/decodeReport`, { ...examples.nitro.request, userData: tweak(examples.nitro.request.userData, 0, 2) });
    expect(mismatch.body.reportValid).toBe(false);
    expect(mismatch.body.errorCode).toBe('USERDATA_HASH_MISMATCH');
    const garbage = await postJson(`${url}/decodeReport`, { userData: examples.nitro.request.userData, report: 'nonsense' });
    expect(garbage.body.reportValid).toBe(false);
    expect(garbage.body.reportType).toBeUndefined();
    // unknown paths: the raw URL must never become a label
    expect((await fetch(`${url}/no/such/path-7f3a?token=secret`)).status).toBe(404);
    expect((await fetch(`${url}/decode`)).status).toBe(405);

    const s = await scrape();
    const http = (route: string, method: string, status: number) => value(s, 'verifier_http_requests_total', { route, method, status_code: String(status) });
    expect(http('/info', 'GET', 200)).toBe(2);
    expect(http('/decode', 'POST', good.status)).toBe(bad.status === good.status ? 2 : 1);
    if (bad.status !== good.status) expect(http('/decode', 'POST', bad.status)).toBe(1);
    expect(http('/decode', 'POST', 400)).toBe(1);
    expect(http('/decodeReport', 'POST', 200)).toBe(4 - [garbage, mismatch].filter((r) => r.status !== 200).length);
    expect(http('unmatched', 'GET', 404)).toBe(1);
    expect(http('unmatched', 'GET', 405)).toBe(1);
    // the histogram counts the same requests
    expect(value(s, 'verifier_http_request_duration_seconds_count', { route: '/info', method: 'GET', status_code: '200' })).toBe(2);
    expect(value(s, 'verifier_http_request_duration_seconds_bucket', { route: '/info', method: 'GET', status_code: '200', le: '+Inf' })).toBe(2);
    // /metrics itself is not counted, raw URLs never appear
    expect(s.some((x) => x.labels.route === '/metrics')).toBe(false);
    expect(s.some((x) => Object.values(x.labels).some((v) => v.includes('path-7f3a') || v.includes('secret')))).toBe(false);
    expect(new Set(s.filter((x) => x.name === 'verifier_http_requests_total').map((x) => x.labels.route))).toEqual(new Set(['/info', '/decode', '/decodeReport', 'unmatched']));

    // verification outcomes
    expect(value(s, 'verifier_verifications_total', { kind: 'typeB', outcome: 'valid' })).toBe(2);
    expect(value(s, 'verifier_verifications_total', { kind: 'typeB', outcome: 'invalid' })).toBe(1);
    expect(value(s, 'verifier_verifications_total', { kind: 'unknown', outcome: 'invalid' })).toBe(1);
    expect(value(s, 'verifier_verification_failures_total', { kind: 'typeB', code: 'USERDATA_HASH_MISMATCH' })).toBe(1);
    expect(value(s, 'verifier_verification_failures_total', { kind: 'unknown', code: garbage.body.errorCode })).toBe(1);
    expect(s.filter((x) => x.name === 'verifier_verification_failures_total').reduce((a, x) => a + x.value, 0)).toBe(2);
    expect(value(s, 'verifier_verification_duration_seconds_count', { kind: 'typeB', outcome: 'valid' })).toBe(2);
    // /decode does not verify anything
    expect(s.filter((x) => x.name === 'verifier_verifications_total').reduce((a, x) => a + x.value, 0)).toBe(4);

    // the real chain cache: the first Nitro chain was a miss, the later ones hits
    expect(value(s, 'verifier_cache_misses_total', { cache: 'x509_chain' })).toBe(chainCache.misses);
    expect(value(s, 'verifier_cache_hits_total', { cache: 'x509_chain' })).toBe(chainCache.hits);
    expect(chainCache.misses).toBe(1);
    expect(chainCache.hits).toBeGreaterThanOrEqual(1);
    expect(value(s, 'verifier_cache_entries', { cache: 'x509_chain' })).toBe(chainCache.size);
  });

  it('cache counters stay monotonic and follow the cache by deltas across scrapes', async () => {
    const before = value(await scrape(), 'verifier_cache_hits_total', { cache: 'x509_chain' })!;
    expect((await postJson(`${url}/decodeReport`, examples.nitro.request)).body.reportValid).toBe(true);
    const after = await scrape();
    expect(value(after, 'verifier_cache_hits_total', { cache: 'x509_chain' })).toBe(before + 1);
    expect(value(after, 'verifier_cache_hits_total', { cache: 'x509_chain' })).toBe(chainCache.hits);
  });

  it('reports pool, upstream and hash figures given to the sink', async () => {
    metrics.sink.setPoolStats({ queueSize: 3, utilization: 0.75, threads: 2, coalesced: 5 });
    metrics.sink.observePoolTask(0.004);
    metrics.sink.observePoolTask(0.02);
    metrics.sink.observeUpstream('pccs', 'pckcrl?ca=processor&encoding=der', 200, 0.12);
    metrics.sink.observeUpstream('pccs', 'https://certificates.trustedservices.intel.com/IntelSGXRootCA.der', 200, 0.05);
    metrics.sink.observeUpstream('pccs', '/tcb', 503, 0.3);
    metrics.sink.observeUpstream('ledger', '/program/{program}/mapping/{mapping}/{key}', 'error', 5);
    // the verifications of the earlier tests reported their Poseidon8 hash times
    const hashBefore = value(await scrape(), 'verifier_hash_duration_seconds_count', {}) ?? 0;
    expect(hashBefore).toBeGreaterThanOrEqual(2);
    metrics.sink.observeHash(0.0003);
    let s = await scrape();
    expect(value(s, 'verifier_pool_queue_size', {})).toBe(3);
    expect(value(s, 'verifier_pool_utilization', {})).toBe(0.75);
    expect(value(s, 'verifier_pool_threads', {})).toBe(2);
    // reports verified in a shared task: a counter following the pool's cumulative figure
    expect(value(s, 'verifier_pool_coalesced_reports_total', {})).toBe(5);
    metrics.sink.setPoolStats({ queueSize: 3, utilization: 0.75, threads: 2, coalesced: 9 });
    expect(value(await scrape(), 'verifier_pool_coalesced_reports_total', {})).toBe(9);
    expect(value(s, 'verifier_pool_task_duration_seconds_count', {})).toBe(2);
    expect(value(s, 'verifier_pool_task_duration_seconds_bucket', { le: '0.005' })).toBe(1);
    // the stages of a pool task: queue wait, worker run, collateral wait (only a task that asked), worker GC pauses
    metrics.sink.observePoolStages({ queueWaitSeconds: 0.0002, runSeconds: 0.003, collateralWaitSeconds: 0.04, gcPauses: [0.0007, 0.02] });
    metrics.sink.observePoolStages({ queueWaitSeconds: 0.03, runSeconds: 0.002, gcPauses: [] });
    const staged = await scrape();
    expect(value(staged, 'verifier_pool_queue_wait_seconds_count', {})).toBe(2);
    expect(value(staged, 'verifier_pool_queue_wait_seconds_bucket', { le: '0.00025' })).toBe(1);
    expect(value(staged, 'verifier_pool_run_seconds_count', {})).toBe(2);
    expect(value(staged, 'verifier_pool_run_seconds_sum', {})).toBeCloseTo(0.005, 9);
    expect(value(staged, 'verifier_collateral_wait_seconds_count', {})).toBe(1);
    expect(value(staged, 'verifier_collateral_wait_seconds_bucket', { le: '0.025' })).toBe(0);
    expect(value(staged, 'verifier_collateral_wait_seconds_bucket', { le: '0.05' })).toBe(1);
    expect(value(staged, 'verifier_worker_gc_pause_seconds_count', {})).toBe(2);
    expect(value(staged, 'verifier_worker_gc_pause_seconds_bucket', { le: '0.001' })).toBe(1);
    expect(value(s, 'verifier_upstream_requests_total', { service: 'pccs', route: '/pckcrl', status: '200' })).toBe(1);
    expect(value(s, 'verifier_upstream_requests_total', { service: 'pccs', route: '/tcb', status: '503' })).toBe(1);
    expect(value(s, 'verifier_upstream_requests_total', { service: 'pccs', route: '/IntelSGXRootCA.der', status: '200' })).toBe(1);
    expect(value(s, 'verifier_upstream_requests_total', { service: 'ledger', route: '/program/{program}/mapping/{mapping}/{key}', status: 'error' })).toBe(1);
    expect(value(s, 'verifier_upstream_errors_total', { service: 'pccs', route: '/tcb' })).toBe(1);
    expect(value(s, 'verifier_upstream_errors_total', { service: 'pccs', route: '/pckcrl' })).toBeUndefined();
    expect(value(s, 'verifier_upstream_errors_total', { service: 'ledger', route: '/program/{program}/mapping/{mapping}/{key}' })).toBe(1);
    expect(value(s, 'verifier_upstream_request_duration_seconds_sum', { service: 'pccs', route: '/tcb' })).toBeCloseTo(0.3, 9);
    expect(value(s, 'verifier_hash_duration_seconds_count', {})).toBe(hashBefore + 1);
    // a pulled reader replaces pushed figures and is read at each scrape
    let q = 7;
    metrics.sink.registerPoolStats(() => ({ queueSize: q, utilization: 1, threads: 4 }));
    s = await scrape();
    expect(value(s, 'verifier_pool_queue_size', {})).toBe(7);
    q = 0;
    s = await scrape();
    expect(value(s, 'verifier_pool_queue_size', {})).toBe(0);
    expect(value(s, 'verifier_pool_threads', {})).toBe(4);
  });

  it('counts each report POST /verify verifies in verifier_verifications_total', async () => {
    const total = (s: Sample[]) => s.filter((x) => x.name === 'verifier_verifications_total').reduce((a, x) => a + x.value, 0);
    const before = await scrape();
    const r = await postJson(`${url}/verify`, { reports: [attestationResponse] });
    expect(r.status).toBe(200);
    const after = await scrape();
    expect(total(after)).toBe(total(before) + 1);
    const outcome = r.body.success ? 'valid' : 'invalid';
    expect(value(after, 'verifier_verifications_total', { kind: 'typeB', outcome })).toBe((value(before, 'verifier_verifications_total', { kind: 'typeB', outcome }) ?? 0) + 1);
  });

  it('describes /metrics in the OpenAPI document as Prometheus text', async () => {
    const doc: any = await (await fetch(`${url}/docs/json`)).json();
    expect(Object.keys(doc.paths)).toContain('/decodeReport');
    expect(Object.keys(doc.paths['/metrics'].get.responses['200'].content)).toEqual(['text/plain']);
  });
});

describe('createMetrics', () => {
  it('uses its own registry: two instances do not share series and the global registry stays empty', async () => {
    const { register } = await import('prom-client');
    const a = createMetrics({ defaultMetrics: false });
    const b = createMetrics({ defaultMetrics: false });
    a.sink.observeVerification('typeA', true, undefined, 0.01);
    expect(await a.registry.getSingleMetricAsString('verifier_verifications_total')).toMatch(/kind="typeA",outcome="valid"} 1/);
    expect(await b.registry.getSingleMetricAsString('verifier_verifications_total')).not.toMatch(/kind="typeA"/);
    expect(register.getMetricsAsArray().filter((m) => m.name.startsWith('verifier_'))).toEqual([]);
  });

  it('labels the outcome by the failure code: unverifiable (PCCS down, pool full) apart from invalid', async () => {
    const m = createMetrics({ defaultMetrics: false });
    m.sink.observeVerification('typeA', false, 'PCCS_UNAVAILABLE', 0.01);
    m.sink.observeVerification('typeA', false, 'TYPEA_TCB_INFO_EXPIRED', 0.01);
    m.sink.observeVerification('typeB', false, 'USERDATA_HASH_MISMATCH', 0.01);
    m.sink.observeVerification('typeB', true, undefined, 0.01);
    const refused = new VerifierError('POOL_OVERLOADED', 'full');
    const svc = instrumentService(
      {
        decode: () => ({ error: { code: 'USERDATA_ERA_UNKNOWN', message: 'x' } }),
        decodeReport: async () => {
          throw refused;
        },
        verifyBytes: async () => {
          throw refused;
        },
        checkResponse: async () => ({ valid: true }),
        admit: () => {
          throw refused;
        },
      },
      m.sink,
    );
    await expect(svc.decodeReport('a', 'b')).rejects.toBe(refused);
    // A refused batch of three counts three refused reports.
    expect(() => svc.admit!(3)).toThrow(refused);
    const s = parseExposition(await m.registry.metrics());
    expect(value(s, 'verifier_verifications_total', { kind: 'typeA', outcome: 'unverifiable' })).toBe(2);
    expect(value(s, 'verifier_verifications_total', { kind: 'typeA', outcome: 'invalid' })).toBeUndefined();
    expect(value(s, 'verifier_verifications_total', { kind: 'typeB', outcome: 'invalid' })).toBe(1);
    expect(value(s, 'verifier_verifications_total', { kind: 'typeB', outcome: 'valid' })).toBe(1);
    expect(value(s, 'verifier_verifications_total', { kind: 'unknown', outcome: 'unverifiable' })).toBe(4);
    expect(value(s, 'verifier_verification_duration_seconds_count', { kind: 'typeA', outcome: 'unverifiable' })).toBe(2);
    expect(value(s, 'verifier_verification_failures_total', { kind: 'unknown', code: 'POOL_OVERLOADED' })).toBe(4);
    // A service without a bound has no admit.
    expect(instrumentService({ ...svc, admit: undefined } as VerifierService, m.sink).admit).toBeUndefined();
  });

  it('exports the Poseidon8 kernel in use as verifier_hash_backend_info{backend}', async () => {
    const { poseidon8KernelName } = await import('../../src/hash/kernel.js');
    const s = parseExposition(await createMetrics({ defaultMetrics: false }).registry.metrics());
    expect(value(s, 'verifier_hash_backend_info', { backend: poseidon8KernelName })).toBe(1);
    expect(poseidon8KernelName).toBe(expectedKernelName());
  });

  it('verifier_hash_backend_info names the kernel each VERIFIER_HASH_BACKEND / VERIFIER_HASH_CPU_FEATURES setting selects (fresh processes)', { timeout: 120_000 }, () => {
    const script = `
      const { createMetrics } = await import(${JSON.stringify(new URL('../../src/observability/metrics.ts', import.meta.url).href)});
      const text = await createMetrics({ defaultMetrics: false }).registry.metrics();
      console.log(text.split('\\n').filter((l) => l.startsWith('verifier_hash_backend_info{')).join('|'));`;
    const run = (env: Record<string, string>) =>
      execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        env: { ...process.env, VERIFIER_HASH_BACKEND: '', VERIFIER_HASH_CPU_FEATURES: '', ...env },
        encoding: 'utf8',
      }).trim();
    const adxHere = nativeKernels().includes('adx');
    expect(run({})).toBe(`verifier_hash_backend_info{backend="${adxHere ? 'native-adx' : 'native'}"} 1`);
    // A CPU without the ADX kernel's features: the portable native kernel.
    expect(run({ VERIFIER_HASH_CPU_FEATURES: 'none' })).toBe('verifier_hash_backend_info{backend="native"} 1');
    for (const b of ['native', 'wasm', 'bigint']) expect(run({ VERIFIER_HASH_BACKEND: b })).toBe(`verifier_hash_backend_info{backend="${b}"} 1`);
  });

  it('verifier_bhp_backend_info names the BHP implementation of the inclusion proofs: native where the addon loads, portable when VERIFIER_BHP_BACKEND=portable (fresh processes)', { timeout: 120_000 }, () => {
    const script = `
      const { createMetrics } = await import(${JSON.stringify(new URL('../../src/observability/metrics.ts', import.meta.url).href)});
      const text = await createMetrics({ defaultMetrics: false }).registry.metrics();
      console.log(text.split('\\n').filter((l) => l.startsWith('verifier_bhp_backend_info{')).join('|'));`;
    const run = (env: Record<string, string>) =>
      execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, VERIFIER_BHP_BACKEND: '', ...env }, encoding: 'utf8' }).trim();
    // The addon is built here (npm install builds it), so the native BHP is the default.
    expect(run({})).toBe('verifier_bhp_backend_info{backend="native"} 1');
    expect(run({ VERIFIER_BHP_BACKEND: 'portable' })).toBe('verifier_bhp_backend_info{backend="portable"} 1');
  });

  it('bounds label values: unknown codes and bad upstream routes collapse, bad cache names are refused', async () => {
    const m = createMetrics({ defaultMetrics: false });
    m.sink.observeVerification('typeA', false, 'some free text with spaces' as ErrorCode, 0.01); // a code from outside the type system
    m.sink.observeUpstream('pccs', 'a b/<script>', 200, 0.01);
    const s = parseExposition(await m.registry.metrics());
    expect(value(s, 'verifier_verification_failures_total', { kind: 'typeA', code: 'OTHER' })).toBe(1);
    expect(value(s, 'verifier_upstream_requests_total', { service: 'pccs', route: 'other', status: '200' })).toBe(1);
    expect(() => m.sink.registerCacheStats('bad name', () => ({ hits: 0, misses: 0, size: 0 }))).toThrow(/invalid cache name/);
    m.sink.registerCacheStats('c', () => ({ hits: 0, misses: 0, size: 0 }));
    expect(() => m.sink.registerCacheStats('c', () => ({ hits: 0, misses: 0, size: 0 }))).toThrow(/already registered/);
  });

  it('instrumentService reports a throwing call as INTERNAL_ERROR and rethrows', async () => {
    const m = createMetrics({ defaultMetrics: false });
    const boom = new Error('boom');
    const inner: VerifierService = {
      decode: () => ({ error: { code: 'USERDATA_ERA_UNKNOWN', message: 'x' } }),
      decodeReport: async () => {
        throw boom;
      },
      verifyBytes: async () => {
        throw boom;
      },
      checkResponse: async () => {
        throw boom;
      },
    };
    const svc = instrumentService(inner, m.sink);
    await expect(svc.decodeReport('a', 'b')).rejects.toBe(boom);
    await expect(svc.checkResponse({ reportType: 'nitro' } as Parameters<VerifierService['checkResponse']>[0])).rejects.toBe(boom);
    expect(svc.decode('u')).toEqual({ error: { code: 'USERDATA_ERA_UNKNOWN', message: 'x' } });
    const s = parseExposition(await m.registry.metrics());
    expect(value(s, 'verifier_verification_failures_total', { kind: 'unknown', code: 'INTERNAL_ERROR' })).toBe(2);
  });
});
