/**
 * Route snapshot: a proof of no behaviour change (item 7 of the redesign issue). It records the
 * answer of every HTTP route to every real vector and minted case, so that the answers before and
 * after a refactor can be compared byte for byte.
 *
 *   npx tsx scripts/route-snapshot.ts mint DIR          writes every INPUT once (minting is random)
 *   npx tsx scripts/route-snapshot.ts run DIR OUT.json  replays DIR against the service, in process
 *   npx tsx scripts/route-snapshot.ts compare A.json B.json   prints differing entries, exit 1 if any
 *
 * DIR (self-contained): manifest.json (configs: raw config.json objects with the placeholders
 * $PCCS, $LEDGER, $TMP, each with its case sets), cases/<set>.json (requests), roots/*.pem (minted
 * test PKIs), pccs/*.json (bundles served by test/support/pccs-server.ts), collateral/* (offline
 * typeA directories), ledger/chain.json (blocks and transactions served by test/support/ledger-node.ts).
 *
 * `mint` may use anything of the tree (test PKIs, encoders); `run` imports only src/config/load.js,
 * src/bootstrap.js, test/support/pccs-server.ts and test/support/ledger-node.ts, so that it runs
 * unchanged on a tree whose other src files moved. Requests are sent one at a time.
 *
 * Normalized by normalizeNondeterministic (replaced with "<normalized>"; they depend on the clock,
 * the ports or the machine, not on the behaviour):
 *   - GET /info: startTimeUTC
 *   - GET /status/pccs: checkedAt, latencyMs
 *   - ledger records (/ledger/transactions/{id}, /ledger/updates): verifiedAt
 *   - GET /ledger/status: watcher.lastError.at
 *   - every string: the port in 127.0.0.1:<port> (PCCS and ledger-node URLs), the run's temporary
 *     directory and the fixture directory's absolute path
 *   - GET /metrics (normalizeMetrics): the samples of verifier_process_* and verifier_nodejs_*, and
 *     the values of duration buckets and sums (*_seconds_bucket, *_seconds_sum) and of
 *     verifier_pool_utilization (a share of wall time); counters, gauges
 *     and histogram counts keep their values.
 * Run from the repository root (the vectors are read from ../shared/vectors, as the tests do).
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

interface Case {
  id: string;
  method: string;
  path: string;
  /** Request body: text, or a large body built from a repeated piece. */
  body?: string | { prefix: string; repeat: string; times: number; suffix: string };
  /** Content-Type; default application/json when there is a body; null sends none. */
  type?: string | null;
  /** Ledger-node answers queued before the request (path below the node's prefix). */
  node?: { path: string; replies: NodeReply[] }[];
}
type NodeReply = { json: unknown } | { text: [number, string] } | { hangUp: true } | { tooMany: string };

interface ConfigSpec {
  name: string;
  /** Merged over { port 0, host 127.0.0.1, workers 0, liveCheck.skip }; relative paths resolve against DIR. */
  raw: Record<string, unknown>;
  /** PCCS bundle file served at $PCCS. */
  pccs?: string;
  /** Chain file served by a ledger node at $LEDGER. */
  ledger?: string;
  /** Wait until the watcher reports this scanned height before the first request. */
  waitForHeight?: number;
  sets: string[];
}

interface Entry {
  config: string;
  /** `set/id`: the request (method, path, body, content type) is entry `id` of DIR/cases/<set>.json. */
  request: string;
  method: string;
  path: string;
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

const SELECTED_HEADERS = ['content-type', 'allow', 'retry-after', 'cache-control', 'x-content-type-options', 'content-security-policy'];
const readJson = <T = any>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;
const writeJson = (file: string, v: unknown): void => writeFileSync(file, JSON.stringify(v, null, 1) + '\n');
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const get = (id: string, path: string, method = 'GET'): Case => ({ id, method, path });
const post = (id: string, path: string, body: unknown, extra: Partial<Case> = {}): Case => ({ id, method: 'POST', path, body: typeof body === 'string' ? body : JSON.stringify(body), ...extra });
const MRENCLAVE = new Uint8Array(32).fill(0x5a);

// ---------------------------------------------------------------- mint

async function mint(dir: string): Promise<void> {
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new Error(`${dir} exists and is not empty`);
  for (const d of ['cases', 'roots', 'pccs', 'collateral', 'ledger']) mkdirSync(join(dir, d), { recursive: true });
  const { mintTypeAPki, T0 } = await import('../test/support/typea-pki.js');
  const { createTypeBPki, defaultPcrs } = await import('../test/support/typeb-pki.js');
  const { tamperQuote, TAMPER_CASES } = await import('../test/support/typea-tamper.js');
  const { makeUserData, openEnclaveReport, reportText } = await import('../test/support/ledger-reports.js');
  const { bundleFromCollateral, recordedBundle2026, startPccsServer } = await import('../test/support/pccs-server.js');
  const { realResponses, realUserDataTexts, multiToken } = await import('../test/support/era-vectors.js');
  const { VECTORS, readVectorJson, readVectorHex } = await import('../test/support/paths.js');
  const { singleLineLeo, prettyLeo } = await import('../test/support/ledger-node.js');
  const { formatChunkedStruct, CHUNK_BYTES } = await import('../src/aleo/struct.js');
  const { encodeProofData, padProofData } = await import('../src/encoding/index.js');
  const { ERAS, encodingCandidates, parseUserData } = await import('../src/encoding/eras/index.js');
  const { hashReportData } = await import('../src/hash/index.js');
  const { responseRequests } = await import('../src/verify/attestationResponse.js');
  const { collateralCommand } = await import('../src/cli/collateral.js');
  const { fakeId } = await import('../test/support/ledger-chain.js');

  const sets: Record<string, Case[]> = {};
  const configs: ConfigSpec[] = [];
  const file = (rel: string, text: string | Uint8Array): string => (writeFileSync(join(dir, rel), text), rel);
  const rd = (h: Uint8Array, tail?: [number, number]): Uint8Array => {
    const r = new Uint8Array(64);
    r.set(h);
    if (tail) r[tail[0]] = tail[1];
    return r;
  };
  const dr = (id: string, userData: unknown, report: unknown, nonce?: unknown): Case => post(id, '/decodeReport', { userData, report, ...(nonce === undefined ? {} : { nonce }) });
  const verify = (id: string, reports: unknown[]): Case => post(id, '/verify', { reports });
  const UP = [21, 21, 2, 4, 1, 128, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0];
  const SW = [17, 17, 2, 4, 1, 128, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0];
  const upTcb = { components: UP, pceSvn: 13, fmspc: '00906ED50000', pceId: '0000' };

  // --- test PKIs, their roots and collateral
  const a1 = mintTypeAPki({ pckTcb: upTcb });
  const aOld = mintTypeAPki(); // the PCK matches the OutOfDate level
  const aAdv = mintTypeAPki({ levels: [{ components: UP, pceSvn: 13, status: 'UpToDate' }, { components: SW, pceSvn: 11, status: 'SWHardeningNeeded', advisoryIDs: ['INTEL-SA-00615', 'INTEL-SA-00999'] }] });
  const aRev = mintTypeAPki({ revokeLeaf: true, pckTcb: upTcb });
  const b1 = createTypeBPki();
  const b2 = createTypeBPki();
  for (const [n, p] of [['a1', a1], ['a-outofdate', aOld], ['a-advisory', aAdv], ['a-revoked', aRev]] as const) {
    file(`roots/${n}.pem`, p.root.pem);
    writeJson(join(dir, `pccs/${n}.json`), bundleFromCollateral(p.collateral));
  }
  file('roots/b1.pem', b1.rootPem);
  writeJson(join(dir, 'pccs/real-2026.json'), recordedBundle2026(VECTORS));
  const pccsA1 = await startPccsServer(bundleFromCollateral(a1.collateral));
  let log = '';
  const io = { stdout: (x: string) => void (log += x), stderr: (x: string) => void (log += x) };
  if ((await collateralCommand(['fetch', '--pccs', pccsA1.url, '--fmspc', '00906ed50000', '--out', join(dir, 'collateral/a1')], io)) !== 0) throw new Error(`collateral fetch failed: ${log}`);
  await pccsA1.close();
  cpSync(resolve('examples/offline-sgx/collateral'), join(dir, 'collateral/real-2026'), { recursive: true });

  // --- generic routes, HTTP errors and bad inputs
  sets.common = [get('info', '/info'), get('info-head', '/info', 'HEAD'), get('healthz', '/healthz'), get('readyz', '/readyz'), get('status-pccs', '/status/pccs'), get('docs', '/docs/json')];
  sets.pages = ['/', '/ledger', '/page/app.js', '/page/ledger.js', '/page/common.js', '/page/style.css'].map((p) => get(`page${p}`, p)).concat(get('page-head', '/', 'HEAD'));
  sets.final = [get('status-pccs', '/status/pccs'), get('metrics', '/metrics')];
  sets.http = [
    get('404', '/nope'), post('404-post', '/nope', {}), get('404-case', '/INFO'), get('404-slash', '/info/'), get('404-tx-empty', '/ledger/transactions/'), get('info-query', '/info?x=1'),
    ...['/decode', '/decodeReport', '/verify'].map((p) => get(`405${p}`, p)),
    ...['/info', '/healthz', '/readyz', '/docs/json', '/metrics', '/status/pccs', '/ledger/status', '/ledger/updates', '/', '/page/app.js'].map((p) => post(`405-post${p}`, p, {})),
    get('405-delete', '/readyz', 'DELETE'), get('405-put', '/healthz', 'PUT'), get('options', '/decode', 'OPTIONS'),
    get('ledger-tx-unconfigured', `/ledger/transactions/${fakeId('at', 'never-sent')}`),
  ];
  const example: string = readVectorJson<any>('aleo/decode-example.request.json').userData;
  const examples = readVectorJson<any>('aleo/e2e/readme-decodeReport-examples.json');
  const structOf = (n: number, v: (c: number, f: number) => bigint = () => 0n): string =>
    `{ ${range(n).map((c) => `c${c}: { ${range(32).map((f) => `f${f}: ${v(c, f)}u128`).join(', ')} }`).join(', ')} }`;
  const first = (x: bigint) => (c: number, f: number) => (c === 0 && f === 0 ? x : 0n);
  const setField = (text: string, chunk: number, field: number, value: string): string =>
    text.replace(new RegExp(`(c${chunk}:\\s*\\{[^}]*?\\bf${field}:\\s*)(\\d+u128)`), `$1${value}`);
  const bad: Case[] = [];
  for (const route of ['/decode', '/decodeReport', '/verify']) {
    const s = route.slice(1);
    bad.push(
      post(`${s}-malformed`, route, '{"userData": '), post(`${s}-empty`, route, ''), post(`${s}-object`, route, '{}'), post(`${s}-array`, route, '[]'),
      post(`${s}-null`, route, 'null'), post(`${s}-string`, route, '"text"'), post(`${s}-number`, route, '5'),
      post(`${s}-text-plain`, route, '{}', { type: 'text/plain' }), post(`${s}-no-type`, route, '{}', { type: null }),
      post(`${s}-form`, route, 'userData=x', { type: 'application/x-www-form-urlencoded' }), post(`${s}-charset`, route, '{}', { type: 'application/json; charset=utf-8' }),
      { id: `${s}-oversized`, method: 'POST', path: route, body: { prefix: '{"userData":"', repeat: 'x', times: 10 * 1024 * 1024, suffix: '"}' } },
      { id: `${s}-deep`, method: 'POST', path: route, body: { prefix: `{"userData":${'['.repeat(50_000)}`, repeat: ']', times: 50_000, suffix: '}' } },
    );
  }
  const udValues: [string, unknown][] = [
    ['number', 5], ['array', ['x']], ['null', null], ['1-chunk', structOf(1)], ['7-chunk', structOf(7)], ['9-chunk', structOf(9)], ['11-chunk', structOf(11)],
    ['8-zero', structOf(8)], ['10-zero', structOf(10)], ['2^128', structOf(8, first(1n << 128n))], ['2^128-1', structOf(8, first((1n << 128n) - 1n))],
    ['negative', example.replace(/f0: (\d+)u128/, 'f0: -$1u128')], ['no-suffix', example.replace('u128', '')], ['u64', example.replace('u128', 'u64')],
    ['duplicate-field', '{ c0: { f0: 0u128, f0: 0u128 } }'], ['fullwidth', '{ c0: { f0: １u128 } }'], ['nul', '\u0000'.repeat(1000)], ['braces', '{'.repeat(100_000)],
    ['nines', `{ c0: { f0: ${'9'.repeat(100_000)}u128 } }`], ['astral', '𝟘'.repeat(5000)], ['single-line', singleLineLeo(example)], ['pretty', prettyLeo(example)],
    ['missing-f31', example.replace(/,\s*f31:[^}]*\}/, ' }')], ['reordered', example.replace(/f0: (\d+)u128,\s*f1: (\d+)u128/, 'f1: $2u128, f0: $1u128')],
  ];
  for (const [n, v] of udValues) bad.push(post(`decode-userData-${n}`, '/decode', { userData: v }), dr(`decodeReport-userData-${n}`, v, examples.nitro.request.report));
  bad.push(post('decode-extra-key', '/decode', { userData: example, extra: 1 }), post('decode-no-userData', '/decode', { report: example }));
  const rep: [string, unknown][] = [['missing', undefined], ['number', 5], ['8-chunk', structOf(8)], ['9-chunk', structOf(9)], ['11-chunk', structOf(11)], ['10-zero', structOf(10)], ['2^128', structOf(10, first(1n << 128n))], ['string', 'x']];
  for (const [n, v] of rep) bad.push(dr(`decodeReport-report-${n}`, examples.nitro.request.userData, v));
  for (const [n, v] of [['zz', 'zz'], ['number', 5], ['long', '00'.repeat(100)], ['empty', ''], ['odd-hex', 'abc']] as const) bad.push(dr(`decodeReport-nonce-${n}`, examples.nitro.request.userData, examples.nitro.request.report, v));
  const valid = examples.nitro.request as { userData: string; report: string };
  // The hostile mix of test/e2e/hostile-memory.test.ts (request n is of kind n % 12; kind 0, a valid request, is covered elsewhere), two rounds.
  const hostile = (n: number, v = BigInt(n) * 7919n): [string, unknown][] => [
    ['/decodeReport', `{"userData": "${'{'.repeat(n % 50)}`], ['/decodeReport', { userData: valid.userData, report: valid.report.replace(/c9:[\s\S]*$/, '}') }],
    ['/decodeReport', { ...valid, report: setField(valid.report, 3, n % 32, '340282366920938463463374607431768211456u128') }],
    ['/decodeReport', { ...valid, report: setField(valid.report, 1 + (n % 8), n % 32, `${v}u128`) }], ['/decodeReport', { ...valid, report: setField(valid.report, 0, 0, `${v % 256n}u128`) }],
    ['/decodeReport', { ...valid, userData: setField(valid.userData, n % 8, n % 32, `${v}u128`) }],
    ['/decode', { userData: valid.userData.replace(/\d+u128/g, (m) => (m.length % 3 === n % 3 ? `${v}u128` : m)) }], ['/decode', { userData: `\u0000${'x'.repeat(n % 4000)}` }],
    ['/decodeReport', { userData: 42, report: [] }], ['/decodeReport', { ...valid, nonce: 'zz'.repeat(n % 40) }], ['/decodeReport', { userData: 'a'.repeat(300_000), report: '' }],
  ];
  for (const n of range(24).filter((i) => i % 12 > 0)) bad.push(post(`hostile-${n}`, ...hostile(n)[(n % 12) - 1]!));
  const realNitro = readVectorJson<any>('aleo/e2e/docs-example_btc_usdc_attestation_nitro.json');
  const clone = <T>(v: T): T => structuredClone(v);
  bad.push(
    verify('verify-none', []), verify('verify-17', range(17).map(() => 'x')), post('verify-not-array', '/verify', { reports: 'x' }), verify('verify-empty-entry', [{}]),
    verify('verify-null-entry', [null]), verify('verify-seven', [...range(6).map(() => realNitro), 'x']), verify('verify-bad-type', [{ ...clone(realNitro), reportType: 'foo' }]),
    post('verify-extra-key', '/verify', { reports: [realNitro], extra: 1 }),
  );
  const { reportType: _t, ...untyped } = clone(realNitro);
  const numeric = clone(realNitro);
  numeric.oracleData.userData = 42;
  const header = clone(realNitro);
  header.attestationRequest.requestHeaders = { Accept: 1 };
  const results = clone(realNitro);
  results.attestationResults = [{ attestationData: '1', responseStatusCode: 200, timestamp: 1 }];
  bad.push(verify('verify-untyped', [realNitro, untyped]), verify('verify-numeric-userData', [realNitro, numeric]), verify('verify-header-number', [header]), verify('verify-results-shape', [results]));
  sets['bad-inputs'] = bad;

  // --- /decode: real userData of every era and the encoding vectors
  const decodeReal: Case[] = [post('readme-example', '/decode', readFileSync(join(VECTORS, 'aleo/decode-example.request.json'), 'utf8'))];
  for (const u of [...realUserDataTexts(), ...realResponses()]) decodeReal.push(post(u.name, '/decode', { userData: u.userData }));
  for (const v of readVectorJson<any[]>('aleo/encoding/decode-proof-data-vectors.json')) {
    const chunks = Math.max(1, Math.ceil(v.totalLen / CHUNK_BYTES));
    const b = new Uint8Array(chunks * CHUNK_BYTES);
    b.set(Buffer.from(v.hex, 'hex'));
    decodeReal.push(post(`decode-vector ${v.name}`, '/decode', { userData: formatChunkedStruct(b, chunks) }));
  }
  for (const v of readVectorJson<any[]>('aleo/encoding/prepare-proof-data-vectors.json')) {
    if (!v.preparedHex || v.preparedLen > 8 * CHUNK_BYTES) continue;
    const b = new Uint8Array(8 * CHUNK_BYTES);
    b.set(Buffer.from(v.preparedHex, 'hex'));
    decodeReal.push(post(`prepare-vector ${v.name}`, '/decode', { userData: formatChunkedStruct(b, 8) }));
  }
  sets['decode-real'] = decodeReal;
  sets['decode-encoding'] = [];
  readVectorJson<any[]>('aleo/encoding/encoding-value-vectors.json').forEach((v, i) => {
    if (v.prepareError) return;
    try {
      const bytes = encodeProofData({ url: 'api.example.com/price', requestMethod: 'GET', selector: 'price', responseFormat: 'json', encodingOptions: { value: v.encoding, precision: v.precision }, attestationData: v.attestationData, responseStatusCode: 200, timestamp: 1748939008 });
      sets['decode-encoding']!.push(post(`value-${i}`, '/decode', { userData: formatChunkedStruct(padProofData(bytes, 8 * CHUNK_BYTES), 8) }));
    } catch {
      /* not encodable by this encoder: no case */
    }
  });

  // --- real reports: /decodeReport and /verify
  const tweak = (text: string, chunk: number, field: number): string =>
    text.replace(new RegExp(`(c${chunk}:\\s*\\{[^}]*?\\bf${field}:\\s*)(\\d+)u128`), (_m, p: string, n: string) => `${p}${BigInt(n) === 0n ? 1n : BigInt(n) - 1n}u128`);
  const manifest = readVectorJson<any>('nitro/manifest.json');
  const oracleDoc = manifest.vectors.find((v: any) => v.file === 'oracle-nitro-report.hex');
  const nitroReq = examples.nitro.request;
  const typeB: Case[] = [
    post('readme-nitro', '/decodeReport', nitroReq), dr('readme-nitro-userData-tweak', tweak(nitroReq.userData, 0, 2), nitroReq.report),
    ...[[0, 5], [3, 17], [8, 20]].map(([c, f]) => dr(`readme-nitro-report-tweak-c${c}f${f}`, nitroReq.userData, tweak(nitroReq.report, c!, f!))),
    dr('readme-nitro-nonce', nitroReq.userData, nitroReq.report, oracleDoc.nonce), dr('readme-nitro-nonce-base64', nitroReq.userData, nitroReq.report, Buffer.from(oracleDoc.nonce, 'hex').toString('base64')),
    dr('readme-nitro-nonce-other', nitroReq.userData, nitroReq.report, '00'.repeat(32)),
  ];
  for (const f of readdirSync(join(VECTORS, 'nitro')).filter((x) => x.endsWith('.hex')).sort()) {
    const d = readVectorHex('nitro', f);
    // A document over 5120 bytes does not fit a 10-chunk report: sent in as many chunks as it needs (refused by the chunk count).
    typeB.push(dr(`nitro-doc ${f}`, nitroReq.userData, d.length <= 5120 ? reportText(d) : formatChunkedStruct(Uint8Array.from([...d, ...new Uint8Array(-d.length & 511)]), Math.ceil(d.length / 512))));
  }
  const typeA: Case[] = [post('readme-sgx', '/decodeReport', examples.sgx.request), dr('readme-sgx-userData-tweak', tweak(examples.sgx.request.userData, 0, 2), examples.sgx.request.report), dr('readme-sgx-report-tweak', examples.sgx.request.userData, tweak(examples.sgx.request.report, 2, 7))];
  for (const r of realResponses()) {
    const to = r.response.reportType === 'nitro' ? typeB : typeA;
    to.push(dr(`pair ${r.name}`, r.userData, r.response.oracleData.report), verify(`verify ${r.name}`, [r.response]));
    const { userData: _u, ...od } = r.response.oracleData;
    to.push(verify(`verify-reencoded ${r.name}`, [{ ...r.response, oracleData: od }]));
  }
  typeA.push(verify('verify-all-sgx', realResponses().filter((r) => r.response.reportType === 'sgx').map((r) => r.response)));
  const wrapQuote = (q: Uint8Array): Uint8Array => (q[0] === 1 && q[4] === 2 ? q : openEnclaveReport(q));
  const sgxVectors = Object.entries(readVectorJson<Record<string, any>>('sgx/expected.json')).filter(([, v]) => v?.quote && v.collateral && v.verify_at_utc);
  const quoteOf = (f: string): Uint8Array => (f.endsWith('.hex') ? readVectorHex('sgx', f) : new Uint8Array(readFileSync(join(VECTORS, 'sgx', f))));
  for (const [name, v] of sgxVectors) typeA.push(dr(`sgx-quote ${name}`, examples.sgx.request.userData, reportText(wrapQuote(quoteOf(v.quote)))));
  // The documentation's Nitro response and its variants (test/e2e/verify-route.test.ts).
  const data = clone(realNitro);
  data.attestationData = '59408.02000000';
  const bareData = clone(data);
  delete bareData.oracleData;
  const kind = clone(realNitro);
  kind.reportType = 'sgx';
  const nonce = clone(realNitro);
  nonce.nonce = '00'.repeat(32);
  const report = clone(realNitro);
  report.oracleData.report = report.oracleData.report.replace(/f3: (\d+)u128/, (_: string, n: string) => `f3: ${BigInt(n) ^ 1n}u128`);
  const nulls = clone(realNitro);
  Object.assign(nulls, { oracleData: null, attestationResults: null });
  nulls.attestationRequest.requestHeaders = null;
  const huge = clone(realNitro);
  delete huge.oracleData;
  Object.assign(huge, { attestationData: (1n << 200_000n).toString() });
  Object.assign(huge.attestationRequest, { url: 'price_feed: btc', encodingOptions: { value: 'float', precision: 0 } });
  typeB.push(verify('docs-nitro-variants', [data, realNitro, bareData, kind, nonce, report]), verify('docs-nitro-nulls', [nulls]), verify('docs-nitro-8', range(8).map(() => realNitro)), verify('docs-nitro-16', range(16).map(() => realNitro)), verify('docs-nitro-huge', [huge]));
  sets['real-typeB'] = typeB;
  sets['real-typeA'] = typeA;

  // --- minted typeB (test/e2e/decodeReport-minted.test.ts and more)
  const ud = makeUserData();
  const doc = (o: Parameters<typeof b1.mintDocument>[0] = {}): string => reportText(b1.mintDocument({ userData: ud.hash, ...o }));
  const pcrsWith = (i: number, v: Uint8Array) => defaultPcrs().map((p, k) => (k === i ? v : p));
  const t = b1.now;
  const H = 3_600_000;
  const N = new Uint8Array(32).fill(0x4e);
  const full = b1.mintDocument({ userData: ud.hash });
  const flipped = b1.mintDocument({ userData: ud.hash });
  flipped[flipped.length - 1]! ^= 1;
  sets['minted-typeB'] = [
    dr('valid', ud.text, doc()), dr('user-data-15', ud.text, doc({ userData: ud.hash.subarray(0, 15) })), dr('user-data-17', ud.text, doc({ userData: Uint8Array.from([...ud.hash, 0]) })),
    dr('user-data-32', ud.text, doc({ userData: Uint8Array.from([...ud.hash, ...ud.hash]) })), dr('no-user-data', ud.text, doc({ userData: null })),
    dr('other-userData', makeUserData({ attestationData: '59408.01000001' }).text, doc()), dr('other-pcr1', ud.text, doc({ pcrs: pcrsWith(1, new Uint8Array(48).fill(7)) })),
    dr('debug-pcr0', ud.text, doc({ pcrs: pcrsWith(0, new Uint8Array(48)) })), dr('alg-es256', ud.text, doc({ alg: -7 })), dr('digest-sha256', ud.text, doc({ digest: 'SHA256' })),
    dr('expired-leaf', ud.text, doc({ leafNotBefore: t - 5 * H, leafNotAfter: t - H })), dr('leaf-not-yet-valid', ud.text, doc({ leafNotBefore: t + H, leafNotAfter: t + 5 * H })),
    dr('swapped-cabundle', ud.text, doc({ cabundle: (b) => [b[0]!, b[2]!, b[1]!, ...b.slice(3)] })), dr('missing-intermediate', ud.text, doc({ cabundle: (b) => [b[0]!, ...b.slice(2)] })),
    dr('trailing-byte', ud.text, reportText(full, Uint8Array.of(1))), dr('truncated', ud.text, reportText(full.slice(0, full.length - 10))), dr('flipped-signature', ud.text, reportText(flipped)),
    dr('indefinite-map', ud.text, doc({ indefiniteMap: true })), dr('untrusted-root', ud.text, reportText(b2.mintDocument({ userData: ud.hash }))),
    dr('nonce-hex', ud.text, doc({ nonce: N }), hex(N)), dr('nonce-base64', ud.text, doc({ nonce: N }), Buffer.from(N).toString('base64')),
    dr('nonce-other', ud.text, doc({ nonce: N }), '00'.repeat(32)), dr('nonce-absent-in-doc', ud.text, doc(), hex(N)),
  ];

  // --- minted typeA
  const quote = (p = a1, o: Record<string, unknown> = {}): Uint8Array => openEnclaveReport(p.quote({ reportData: rd(ud.hash), mrEnclave: MRENCLAVE, ...o }));
  const good = quote();
  const truncated = good.slice(0, good.length - 100);
  new DataView(truncated.buffer).setBigUint64(8, BigInt(good.length - 16), true);
  const change = (b: Uint8Array, at: number): Uint8Array => ((b = b.slice()), (b[at]! ^= 1), b);
  sets['minted-typeA'] = [
    dr('valid', ud.text, reportText(good)), dr('wrong-mrenclave', ud.text, reportText(quote(a1, { mrEnclave: new Uint8Array(32).fill(1) }))),
    dr('changed-userData', makeUserData({ timestamp: 1725008029 }).text, reportText(good)), dr('trailing-byte', ud.text, reportText(good, Uint8Array.of(9))),
    dr('truncated', ud.text, reportText(truncated)), dr('flipped-isv-body', ud.text, reportText(change(good, 116))), dr('qe-auth-changed', ud.text, reportText(change(good, 16 + 1014))),
    dr('debug', ud.text, reportText(quote(a1, { attributeFlags: 7n }))), dr('report-data-tail', ud.text, reportText(quote(a1, { reportData: rd(ud.hash, [40, 1]) }))),
    dr('qe-svn-6', ud.text, reportText(quote(a1, { qeIsvSvn: 6 }))), dr('untrusted-root', ud.text, reportText(quote(aOld))),
    ...TAMPER_CASES.map(({ part }) => dr(`tampered-${part}`, ud.text, reportText(openEnclaveReport(tamperQuote(a1.quote({ reportData: rd(ud.hash), mrEnclave: MRENCLAVE }), part))))),
  ];
  sets['minted-typeA-outofdate'] = [dr('outofdate', ud.text, reportText(quote(aOld)))];
  sets['minted-typeA-advisory'] = [dr('advisory', ud.text, reportText(quote(aAdv)))];
  sets['minted-typeA-revoked'] = [dr('revoked', ud.text, reportText(quote(aRev)))];
  sets['minted-debug'] = [
    dr('typeA-debug', ud.text, reportText(quote(a1, { attributeFlags: 7n }))), dr('typeA-production', ud.text, reportText(good)),
    dr('typeB-debug', ud.text, doc({ pcrs: defaultPcrs().map((p, i) => (i < 3 ? new Uint8Array(48) : p)) })), dr('typeB-production', ud.text, doc()),
  ];

  // --- minted eras (test/e2e/eras-minted.test.ts): real userData of every era bound by minted quotes
  const m = multiToken();
  const { requestHash: _h, ...result0 } = m.attestationResults[0];
  const single = { reportType: 'sgx', attestationReport: m.attestationReport, ...result0, timestamp: m.timestamp };
  const [era3Bytes] = encodingCandidates(responseRequests(single) as any, ERAS.filter((e) => e.id === 3));
  const w = realResponses().find((v) => v.name.startsWith('Gramine weather'))!.response;
  const cut = { reportType: 'sgx', attestationReport: m.attestationReport, timestamp: m.timestamp, attestationResults: [{ attestationData: w.attestationData, attestationRequest: w.attestationRequest, responseStatusCode: w.responseStatusCode, timestamp: w.timestamp }, m.attestationResults[1]] };
  const [cutBytes] = encodingCandidates(responseRequests(cut) as any, ERAS.filter((e) => e.id === 4));
  const mintedCase = (r: Record<string, any>): { userData: Uint8Array; response: Record<string, any> } => {
    const userData = parseUserData(r.oracleData.userData);
    const oe = openEnclaveReport(a1.quote({ reportData: rd(hashReportData(userData)), mrEnclave: MRENCLAVE }));
    const { nonce: _n, ...rest } = r;
    return { userData, response: { ...rest, reportType: 'sgx', attestationReport: Buffer.from(oe).toString('base64'), oracleData: { ...r.oracleData, report: reportText(oe) } } };
  };
  const eras = [
    [1, mintedCase(realResponses().find((v) => v.name.startsWith('docs weather'))!.response)], [2, mintedCase(w)],
    [3, mintedCase({ ...single, oracleData: { userData: formatChunkedStruct(era3Bytes!, 8) } })], [4, mintedCase(m)], ['4-cut', mintedCase({ ...cut, oracleData: { userData: formatChunkedStruct(cutBytes!, 10) } })],
  ] as const;
  const changed = (b: Uint8Array, at: number): string => ((b = b.slice()), (b[at] = (b[at]! + 1) & 0xff), formatChunkedStruct(b, b.length / CHUNK_BYTES));
  const erasSet: Case[] = [];
  for (const [era, c] of eras) {
    const { userData: _u, ...od } = c.response.oracleData;
    const tampered = clone(c.response);
    const target = Array.isArray(tampered.attestationResults) ? tampered.attestationResults[tampered.attestationResults.length - 1] : tampered;
    target.attestationData = era === 4 ? '0.999999' : '7.00';
    erasSet.push(post(`era${era}-decode`, '/decode', { userData: c.response.oracleData.userData }), dr(`era${era}`, c.response.oracleData.userData, c.response.oracleData.report),
      verify(`era${era}-verify`, [c.response, { ...c.response, oracleData: od }]), verify(`era${era}-verify-tampered`, [tampered]));
  }
  const [, e3] = eras[2];
  const [, e4] = eras[3];
  const named: [string, typeof e4, number][] = [['era4-c1f2', e4, CHUNK_BYTES + 32], ['era4-c2-token', e4, 2 * CHUNK_BYTES + 21], ['era4-c0f3', e4, 48], ['era4-c2f3', e4, 2 * CHUNK_BYTES + 48],
    ['era4-c7', e4, 7 * CHUNK_BYTES + 100], ['era4-c3', e4, 3 * CHUNK_BYTES + 100], ['era3-c0f2', e3, 32], ['era3-token', e3, 21], ['era3-c0f3', e3, 48], ['era3-c7', e3, 7 * CHUNK_BYTES + 5]];
  for (const [n, c, at] of named) erasSet.push(dr(`changed ${n}`, changed(c.userData, at), c.response.oracleData.report));
  for (const chunk of range(10)) erasSet.push(dr(`changed era4 chunk ${chunk}`, changed(e4.userData, chunk * CHUNK_BYTES + ((chunk * 53 + 7) % CHUNK_BYTES)), e4.response.oracleData.report));
  const multiTampered = clone(e4.response);
  multiTampered.attestationResults[1].attestationData = '0.999599';
  erasSet.push(verify('eras-all', eras.map(([, c]) => c.response)), verify('eras-one-tampered', [eras[0][1].response, multiTampered]));
  sets['minted-eras'] = erasSet;

  // --- minted notarizer responses (test/e2e/verify-route.test.ts)
  const { startNotarizerSim } = await import('../test/support/notarizer-sim.js');
  const targets = { 'api.example.com/p': { body: '{"p":"42"}' } };
  const fresh = async (kind: 'typeA' | 'typeB'): Promise<any> => {
    const sim = await startNotarizerSim({ kind, typeA: a1, typeB: b1, whitelist: ['api.example.com'], targets });
    try {
      const r = await fetch(`${sim.url}/notarize`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: 'api.example.com/p', requestMethod: 'GET', selector: 'p', responseFormat: 'json', encodingOptions: { value: 'int' } }) });
      return await r.json();
    } finally {
      await sim.close();
    }
  };
  const fa = await fresh('typeA');
  const fb = await fresh('typeB');
  const fbad = clone(fb);
  const raw = Buffer.from(fbad.attestationReport, 'base64');
  raw[100]! ^= 1;
  fbad.attestationReport = raw.toString('base64');
  delete fbad.oracleData;
  sets['minted-verify'] = [verify('fresh-a-bad-b', [fa, fbad, fb]), verify('fresh-a', [fa]), verify('fresh-b', [fb]), verify('fresh-b-nonce-other', [{ ...fb, nonce: '00'.repeat(32) }]),
    verify('fresh-a-as-nitro', [{ ...fa, reportType: 'nitro' }]), verify('fresh-a-data-changed', [{ ...fa, attestationData: '43' }])];

  // --- ledger: the chain of test/support/ledger-fixture.ts, served from a file
  const { startLedgerFixture } = await import('../test/support/ledger-fixture.js');
  const tmp = mkdtempSync(join(tmpdir(), 'route-snapshot-mint-'));
  const fx = await startLedgerFixture(tmp);
  cpSync(join(tmp, 'a.pem'), join(dir, 'roots/ledger-a.pem'));
  cpSync(join(tmp, 'b.pem'), join(dir, 'roots/ledger-b.pem'));
  writeJson(join(dir, 'pccs/ledger.json'), bundleFromCollateral(fx.env.typeA.collateral));
  writeJson(join(dir, 'ledger/chain.json'), { first: fx.chain.first, latest: fx.chain.latest, blocks: range(fx.chain.latest - fx.chain.first + 1).map((i) => fx.chain.block(fx.chain.first + i)) });
  const txPath = (id: string) => `/ledger/transactions/${id}`;
  const tx = fx.tx;
  const bareHeight = fx.expected.find((x) => x.transactionId === tx.veruWrapped!.transactionId)!.height;
  const bare = (fx.chain.block(bareHeight).transactions as any[])[0].transaction;
  const sgxId = tx.officialSgx!.transactionId;
  sets['ledger-tx'] = [
    ...Object.entries(tx).map(([n, x]) => get(`tx ${n}`, txPath(x.transactionId))), get('tx never-sent', txPath(fakeId('at', 'never-sent'))), get('tx not-a-tx', txPath('not-a-tx')),
    { ...get('tx old-node', txPath(tx.veruWrapped!.transactionId)), node: [{ path: `/transaction/${tx.veruWrapped!.transactionId}`, replies: [{ json: bare }] }] },
    { ...get('tx bad-block-hash', txPath(tx.veruWrapped!.transactionId)), node: [{ path: `/transaction/${tx.veruWrapped!.transactionId}`, replies: [{ json: bare }] }, { path: `/find/blockHash/${tx.veruWrapped!.transactionId}`, replies: [{ json: { not: 'a hash' } }] }] },
    { ...get('tx node-html', txPath(sgxId)), node: [{ path: `/transaction/${sgxId}`, replies: [{ text: [200, '<html>maintenance</html>'] }] }] },
    { ...get('tx node-other-id', txPath(sgxId)), node: [{ path: `/transaction/${sgxId}`, replies: [{ json: { id: fakeId('at', 'another'), type: 'execute' } }] }] },
    { ...get('tx node-array', txPath(sgxId)), node: [{ path: `/transaction/${sgxId}`, replies: [{ json: [1, 2, 3] }] }] },
    { ...get('tx node-gone', txPath(sgxId)), node: [{ path: `/transaction/${sgxId}`, replies: [{ hangUp: true }, { hangUp: true }, { hangUp: true }] }] },
    { ...get('tx node-429-once', txPath(sgxId)), node: [{ path: `/transaction/${sgxId}`, replies: [{ tooMany: '0' }] }] },
    { ...get('tx node-500', txPath(sgxId)), node: [{ path: `/transaction/${sgxId}`, replies: [{ text: [500, 'Something went wrong'] }, { text: [500, 'Something went wrong'] }, { text: [500, 'Something went wrong'] }] }] },
  ];
  // Keyset pages of 3, newest first by (height, transition id): the cursors follow from the chain.
  const newest = [...fx.expected].sort((a, b) => b.height - a.height || (a.transitionId < b.transitionId ? 1 : a.transitionId > b.transitionId ? -1 : 0));
  const cursor = (x: { height: number; transitionId: string }) => Buffer.from(JSON.stringify([x.height, x.transitionId])).toString('base64url');
  sets['ledger-store'] = [
    get('status', '/ledger/status'), get('updates', '/ledger/updates'), ...range(Math.ceil(newest.length / 3)).map((p) => get(`updates page ${p}`, `/ledger/updates?limit=3${p ? `&cursor=${cursor(newest[p * 3 - 1]!)}` : ''}`)),
    ...['valid=false', 'valid=true', 'kind=typeA', 'kind=typeB&limit=2', 'fromHeight=705&toHeight=712&valid=true', 'limit=500', 'fromHeight=800', 'valid=yes', 'kind=typeC', 'limit=0', 'limit=501', 'fromHeight=-1', 'colour=red', 'cursor=bm90LW91cnM'].map((q) => get(`updates ${q}`, `/ledger/updates?${q}`)),
  ];
  await fx.close();
  rmSync(tmp, { recursive: true, force: true });

  // --- configs
  const shipped = readJson<Record<string, unknown>>(resolve('config.json'));
  const sh = shipped as { liveCheck: Record<string, unknown> };
  const realPcrs = [oracleDoc.pcr0, oracleDoc.pcr1, oracleDoc.pcr2];
  const sgxMr = '58e26caa30264d74ee496f370cdf0433a82808f13fb26b885d3f1e54dc7a34df';
  const at2026 = '2026-09-23T00:00:00Z';
  const minted = { uniqueIdTarget: hex(MRENCLAVE), pcrValuesTarget: defaultPcrs().slice(0, 3).map(hex), acceptedTcbStatuses: ['UpToDate'], trustedRoots: { typeA: 'roots/a1.pem', typeB: 'roots/b1.pem' }, verificationTime: new Date(T0).toISOString(), pccsUrl: '$PCCS' };
  const mintedWith = (name: string, root: string, sets2: string[], extra: Record<string, unknown> = {}): ConfigSpec => ({ name, raw: { ...minted, trustedRoots: { typeA: `roots/${root}.pem`, typeB: 'roots/b1.pem' }, ...extra }, pccs: `pccs/${root}.json`, sets: sets2 });
  const ledgerRaw = { ...minted, trustedRoots: { typeA: 'roots/ledger-a.pem', typeB: 'roots/ledger-b.pem' }, liveCheck: { skip: true, apiBaseUrl: '$LEDGER', timeoutMs: 2000 } };
  configs.push(
    // config.json as shipped (clock: now): routes whose answers do not depend on the clock.
    { name: 'shipped', raw: { ...shipped, liveCheck: { skip: true, contractName: sh.liveCheck.contractName }, pccsUrl: '$PCCS' }, pccs: 'pccs/real-2026.json', sets: ['common', 'pages', 'http', 'bad-inputs', 'decode-real', 'decode-encoding', 'real-typeB'] },
    { name: 'real-2026', raw: { uniqueIdTarget: sgxMr, pcrValuesTarget: realPcrs, verificationTime: at2026, pccsUrl: '$PCCS' }, pccs: 'pccs/real-2026.json', sets: ['common', 'real-typeB', 'real-typeA'] },
    { name: 'real-2026-outofdate-accepted', raw: { uniqueIdTarget: sgxMr, pcrValuesTarget: realPcrs, verificationTime: at2026, pccsUrl: '$PCCS', acceptedTcbStatuses: ['UpToDate', 'SWHardeningNeeded', 'OutOfDate'] }, pccs: 'pccs/real-2026.json', sets: ['real-typeA'] },
    { name: 'real-2026-offline', raw: { uniqueIdTarget: sgxMr, pcrValuesTarget: realPcrs, verificationTime: at2026, collateralDir: 'collateral/real-2026', pccsUrl: null }, sets: ['common', 'real-typeA'] },
    { name: 'minted', raw: minted, pccs: 'pccs/a1.json', sets: ['common', 'minted-typeB', 'minted-typeA', 'minted-eras', 'minted-verify'] },
    { name: 'minted-offline', raw: { ...minted, collateralDir: 'collateral/a1', pccsUrl: null }, sets: ['common', 'minted-typeA'] },
    { name: 'minted-offline-with-pccs', raw: { ...minted, collateralDir: 'collateral/a1' }, pccs: 'pccs/a1.json', sets: ['minted-typeA'] },
    { name: 'minted-pccs-down', raw: { ...minted, pccsUrl: 'http://127.0.0.1:9/sgx/certification/v4/' }, sets: ['common', 'minted-typeA'] },
    { name: 'minted-debug-allowed', raw: { ...minted, allowDebugEnclaves: true, pcrValuesTarget: range(3).map(() => '00'.repeat(48)) }, pccs: 'pccs/a1.json', sets: ['minted-debug'] },
    mintedWith('minted-outofdate', 'a-outofdate', ['minted-typeA-outofdate']),
    mintedWith('minted-outofdate-accepted', 'a-outofdate', ['minted-typeA-outofdate'], { acceptedTcbStatuses: ['UpToDate', 'OutOfDate'] }),
    mintedWith('minted-advisory', 'a-advisory', ['minted-typeA-advisory'], { acceptedTcbStatuses: ['UpToDate', 'SWHardeningNeeded'], acceptedAdvisories: ['INTEL-SA-00615'] }),
    mintedWith('minted-advisory-unlisted', 'a-advisory', ['minted-typeA-advisory'], { acceptedTcbStatuses: ['UpToDate', 'SWHardeningNeeded'] }),
    mintedWith('minted-revoked', 'a-revoked', ['minted-typeA-revoked']),
    { name: 'ledger', raw: ledgerRaw, pccs: 'pccs/ledger.json', ledger: 'ledger/chain.json', sets: ['common', 'ledger-tx', 'ledger-store'] },
    { name: 'ledger-watch', raw: { ...ledgerRaw, watch: { enabled: true, fromHeight: fx.chain.first, pollIntervalMs: 100, database: '$TMP/watch.db', batchBlocks: 5, rps: 200 } }, pccs: 'pccs/ledger.json', ledger: 'ledger/chain.json', waitForHeight: fx.chain.latest, sets: ['common', 'ledger-store', 'ledger-tx'] },
  );
  // The real SGX quotes with their own collateral, at their own time (sgx/expected.json).
  const statuses = ['UpToDate', 'SWHardeningNeeded', 'ConfigurationNeeded', 'ConfigurationAndSWHardeningNeeded', 'OutOfDate', 'OutOfDateConfigurationNeeded'];
  sgxVectors.forEach(([name, v], i) => {
    const c = readVectorJson<any>('sgx', v.collateral);
    const chainCrl = { derHex: c.pck_crl, issuerChain: c.pck_crl_issuer_chain };
    const fmspc = String(JSON.parse(c.tcb_info).fmspc ?? '').toLowerCase();
    writeJson(join(dir, `pccs/sgx-${i}.json`), {
      tcbInfo: { [fmspc]: { body: `{"tcbInfo":${c.tcb_info},"signature":"${c.tcb_info_signature}"}`, issuerChain: c.tcb_info_issuer_chain } },
      qeIdentity: { body: `{"enclaveIdentity":${c.qe_identity},"signature":"${c.qe_identity_signature}"}`, issuerChain: c.qe_identity_issuer_chain },
      pckCrl: { processor: chainCrl, platform: chainCrl }, rootCaCrlHex: c.root_ca_crl,
    });
    sets[`sgx-vector-${i}`] = [dr(name, examples.sgx.request.userData, reportText(wrapQuote(quoteOf(v.quote))))];
    configs.push({ name: `sgx-vector ${name}`, raw: { uniqueIdTarget: v.reference_result?.mrenclave ?? sgxMr, pcrValuesTarget: realPcrs, verificationTime: v.verify_at_utc, pccsUrl: '$PCCS', acceptedTcbStatuses: statuses }, pccs: `pccs/sgx-${i}.json`, sets: [`sgx-vector-${i}`] });
  });
  for (const [name, cs] of Object.entries(sets)) {
    const dup = cs.find((c, i) => cs.findIndex((o) => o.id === c.id) !== i);
    if (dup) throw new Error(`case id ${dup.id} twice in set ${name}`);
    writeJson(join(dir, 'cases', `${name}.json`), cs);
  }
  writeJson(join(dir, 'manifest.json'), { format: 'route-snapshot/1', mintedAt: new Date().toISOString(), configs });
  for (const c of configs) console.log(`${c.name}: ${c.sets.map((s) => `${s} (${sets[s]!.length})`).join(', ')}`);
}

// ---------------------------------------------------------------- run

type NodeModule = typeof import('../test/support/ledger-node.js');
type LedgerNode = import('../test/support/ledger-node.js').LedgerNode;

/** Serves DIR/ledger/chain.json as test/support/ledger-chain.ts does (same routes, same answers). */
function serveChain(node: LedgerNode, chain: { first: number; latest: number; blocks: any[] }, json: NodeModule['jsonAnswer']): void {
  const text = (status: number, body: string) => ({ status, body, headers: { 'content-type': 'text/plain' } });
  const blocks = new Map<number, any>(chain.blocks.map((b) => [b.header.metadata.height as number, b]));
  const txs = new Map<string, { tx: unknown; height: number; hash: string }>();
  for (const [height, b] of blocks) for (const c of b.transactions) txs.set(c.transaction.id, { tx: c.transaction, height, hash: b.block_hash });
  node.addRoute('GET', /^\/blocks$/, ({ query }) => {
    const s = Number(query.get('start'));
    const e = Number(query.get('end'));
    if (!Number.isInteger(s) || !Number.isInteger(e) || s < 0 || e <= s) return text(500, 'Invalid URL - start and end must be integers with start < end');
    if (e - s > 50) return text(500, `Cannot request more than 50 blocks per call (requested ${e - s})`);
    if (s < chain.first || e - 1 > chain.latest) return text(500, `Missing blocks in range ${s}..${e}`);
    return json(range(e - s).map((i) => blocks.get(s + i)));
  });
  node.addRoute('GET', /^\/block\/height\/latest$/, () => json(chain.latest));
  node.addRoute('GET', /^\/block\/(\d+)\/transactions$/, ({ params: [h = ''] }) => json(blocks.get(Number(h))?.transactions ?? []));
  node.addRoute('GET', /^\/find\/blockHash\/([^/]+)$/, ({ params: [id = ''] }) => {
    const hit = txs.get(id);
    return hit ? json(hit.hash) : text(500, `Missing transaction '${id}'`);
  });
  node.addRoute('GET', /^\/height\/([^/]+)$/, ({ params: [hash = ''] }) => {
    for (const [h, b] of blocks) if (b.block_hash === hash) return json(h);
    return text(500, `Missing block hash '${hash}'`);
  });
  node.addRoute('GET', /^\/transaction\/([^/]+)$/, ({ params: [id = ''], query }) => {
    const hit = txs.get(id);
    if (!hit) return text(500, `Missing transaction '${id}'`);
    return json(query.get('metadata') === 'true' ? { transaction: hit.tx, block_hash: hit.hash, block_height: hit.height } : hit.tx);
  });
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** One request over a fresh connection; the body is parsed when the answer says JSON. */
function send(port: number, c: Case): Promise<Answer> {
  const body = c.body === undefined ? undefined : Buffer.from(typeof c.body === 'string' ? c.body : c.body.prefix + c.body.repeat.repeat(c.body.times) + c.body.suffix);
  const type = c.type === undefined ? (body ? 'application/json' : null) : c.type;
  const headers: Record<string, string | number> = { ...(type ? { 'content-type': type } : {}), ...(body ? { 'content-length': body.length } : {}) };
  return new Promise((done, fail) => {
    let answered = false;
    const req = httpRequest({ host: '127.0.0.1', port, method: c.method, path: c.path, headers, agent: false }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('error', fail);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const selected = Object.fromEntries(SELECTED_HEADERS.filter((h) => res.headers[h] !== undefined).map((h) => [h, String(res.headers[h])]));
        let parsed: unknown = text;
        if (/json/.test(selected['content-type'] ?? '')) {
          try {
            parsed = JSON.parse(text);
          } catch {
            /* keep the text */
          }
        }
        done({ status: res.statusCode ?? 0, headers: selected, body: parsed });
      });
    });
    // An early answer (413) may reset the upload: that error does not matter once answered.
    req.on('error', (e) => (answered ? undefined : fail(e)));
    req.end(body);
  });
}

/**
 * Waits until the watcher stored every block up to `height`. It asks GET /ledger/status only after
 * the node saw the watcher's next poll of the tip (it polls only after storing what it scanned),
 * so that the status route is asked once (its request count is part of /metrics).
 */
async function waitForHeight(port: number, height: number, node: LedgerNode): Promise<void> {
  const until = Date.now() + 180_000;
  const polls = () => node.requests.filter((r) => r.path.endsWith('/block/height/latest')).length;
  for (let need = 2; ; need = polls() + 1) {
    while (polls() < need) {
      if (Date.now() > until) throw new Error(`the watcher did not reach height ${height}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const s = await send(port, get('status', '/ledger/status'));
    const b = s.body as { scannedHeight?: number; tipHeight?: number };
    if (s.status === 200 && b.scannedHeight === height && b.tipHeight === height) return;
  }
}

async function run(dirArg: string, outFile: string): Promise<void> {
  const dir = resolve(dirArg);
  const { configs } = readJson<{ configs: ConfigSpec[] }>(join(dir, 'manifest.json'));
  const { resolveConfig } = await import('../src/config/load.js');
  const { bootstrap } = await import('../src/bootstrap.js');
  const { startPccsServer } = await import('../test/support/pccs-server.js');
  const ledgerNode: NodeModule = await import('../test/support/ledger-node.js');
  const { reply } = ledgerNode;
  const behaviour = (r: NodeReply) => ('json' in r ? reply.json(r.json) : 'text' in r ? reply.text(...r.text) : 'hangUp' in r ? reply.hangUp() : reply.tooManyRequests(r.tooMany));
  const entries: Entry[] = [];
  for (const spec of configs) {
    const started = Date.now();
    const tmp = mkdtempSync(join(tmpdir(), 'route-snapshot-'));
    const closers: (() => Promise<void>)[] = [];
    let node: LedgerNode | undefined;
    try {
      let raw = JSON.stringify(spec.raw).replaceAll('$TMP', tmp);
      if (spec.pccs) {
        const pccs = await startPccsServer(readJson(join(dir, spec.pccs)));
        closers.push(() => pccs.close());
        raw = raw.replaceAll('$PCCS', pccs.url);
      }
      if (spec.ledger) {
        const n = await ledgerNode.startLedgerNode();
        serveChain(n, readJson(join(dir, spec.ledger)), ledgerNode.jsonAnswer);
        closers.push(() => n.close());
        raw = raw.replaceAll('$LEDGER', n.url);
        node = n;
      }
      // A probe of the PCCS at most once per config (its answers are the same, their count would depend on the run's speed).
      const config = resolveConfig({ port: 0, host: '127.0.0.1', workers: 0, liveCheck: { skip: true }, pccsProbeMaxAgeMs: 3_600_000, ...JSON.parse(raw) }, dir);
      const { app } = await bootstrap(config, { info() {}, warn() {} }, { logger: false });
      closers.unshift(() => app.close());
      await app.listen({ port: 0, host: '127.0.0.1' });
      const port = (app.server.address() as { port: number }).port;
      if (spec.waitForHeight !== undefined) await waitForHeight(port, spec.waitForHeight, node!);
      let count = 0;
      for (const set of [...spec.sets, 'final']) {
        for (const c of readJson<Case[]>(join(dir, 'cases', `${set}.json`))) {
          for (const s of c.node ?? []) node!.script(s.path, s.replies.map(behaviour));
          const a = await send(port, c);
          if (c.node) node!.reset(); // answers the service did not ask for must not reach the next case
          entries.push(normalizeNondeterministic({ config: spec.name, request: `${set}/${c.id}`, method: c.method, path: c.path, ...a }, [tmp, dir]));
          count++;
        }
      }
      process.stderr.write(`${spec.name}: ${count} requests in ${Date.now() - started} ms\n`);
    } catch (e) {
      // A config that no longer starts (or a request that gets no answer) is a difference too: recorded, and the run goes on.
      process.stderr.write(`${spec.name}: FAILED ${(e as Error).stack ?? String(e)}\n`);
      entries.push(normalizeNondeterministic({ config: spec.name, request: '(failure)', method: '-', path: '-', status: 0, headers: {}, body: String((e as Error).message ?? e) }, [tmp, dir]));
      process.exitCode = 1;
    } finally {
      for (const close of closers) await close();
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  writeJson(outFile, entries);
}

// ---------------------------------------------------------------- normalization

/** JSON keys whose (string or number) values depend on the clock, wherever they occur; `parent.key` only inside `parent`. */
const NORMALIZED_KEYS = new Set(['startTimeUTC', 'checkedAt', 'latencyMs', 'verifiedAt', 'lastError.at']);

/** Replaces what legitimately differs between two runs on the same DIR with "<normalized>" (see the header). */
function normalizeNondeterministic(e: Entry, paths: string[]): Entry {
  const str = (s: string): string => paths.reduce((acc, p) => acc.split(p).join('<normalized>'), s).replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<normalized>');
  const walk = (v: unknown, parent = ''): unknown => {
    if (typeof v === 'string') return str(v);
    if (Array.isArray(v)) return v.map((x) => walk(x));
    // Only values (a string or a number), not objects: /docs/json describes these keys and is compared as is.
    const clock = (k: string, x: unknown) => (typeof x === 'string' || typeof x === 'number') && (NORMALIZED_KEYS.has(k) || NORMALIZED_KEYS.has(`${parent}.${k}`));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, clock(k, x) ? '<normalized>' : walk(x, k)]));
    return v;
  };
  const body = e.path === '/metrics' && typeof e.body === 'string' ? normalizeMetrics(str(e.body)) : walk(e.body);
  return { ...e, headers: walk(e.headers) as Record<string, string>, body };
}

/**
 * /metrics: the process and Node.js series (verifier_process_*, verifier_nodejs_*) keep their HELP
 * and TYPE lines, their samples become one `<family> <normalized>` line; histogram buckets and sums
 * of durations (*_seconds_bucket, *_seconds_sum) keep their labels, their values are normalized.
 * Counters, gauges of the verifier and histogram counts keep their values.
 */
function normalizeMetrics(text: string): string {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const type = /^# TYPE (verifier_(?:process|nodejs)_\w+)/.exec(line);
    if (/^verifier_(process|nodejs)_/.test(line)) continue;
    out.push(/^\w+_seconds_(bucket|sum)[{ ]|^verifier_pool_utilization /.test(line) ? line.replace(/ \S+$/, ' <normalized>') : line);
    if (type) out.push(`${type[1]} <normalized>`);
  }
  return out.join('\n');
}

// ---------------------------------------------------------------- compare

const short = (v: unknown): string => {
  const s = JSON.stringify(v) ?? 'undefined';
  return s.length > 160 ? `${s.slice(0, 157)}...` : s;
};

/** Where two values differ, as "path: a → b" lines. */
function differences(a: unknown, b: unknown, at = ''): string[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    const out = keys.flatMap((k) => differences((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}/${k}`));
    return out.length ? out : [`${at || '/'}: same members in another order`];
  }
  if (typeof a === 'string' && typeof b === 'string' && (a.includes('\n') || b.includes('\n'))) {
    const la = a.split('\n');
    const lb = b.split('\n');
    const i = la.findIndex((l, k) => l !== lb[k]);
    const k = i < 0 ? la.length : i;
    return [`${at || '/'} line ${k + 1}: ${short(la[k])} → ${short(lb[k])}`];
  }
  return [`${at || '/'}: ${short(a)} → ${short(b)}`];
}

function compare(fileA: string, fileB: string): number {
  const key = (e: Entry) => `${e.config} ${e.request}`;
  const a = readJson<Entry[]>(fileA);
  const b = new Map(readJson<Entry[]>(fileB).map((e) => [key(e), e]));
  let differing = 0;
  for (const ea of a) {
    const eb = b.get(key(ea));
    b.delete(key(ea));
    if (eb && JSON.stringify(ea) === JSON.stringify(eb)) continue;
    differing++;
    console.log(`[${ea.config}] ${ea.method} ${ea.path.length > 100 ? `${ea.path.slice(0, 97)}...` : ea.path} (${ea.request})`);
    const lines = eb ? differences(ea, eb) : ['only in A'];
    for (const l of lines.slice(0, 8)) console.log(`    ${l}`);
    if (lines.length > 8) console.log(`    ... ${lines.length - 8} more`);
  }
  for (const eb of b.values()) {
    differing++;
    console.log(`[${eb.config}] ${eb.method} ${eb.path} (${eb.request})\n    only in B`);
  }
  console.log(differing ? `${differing} differing entries` : `identical: ${a.length} entries`);
  return differing ? 1 : 0;
}

// ---------------------------------------------------------------- main

const [mode, x, y] = process.argv.slice(2);
if (mode === 'mint' && x) await mint(resolve(x));
else if (mode === 'run' && x && y) await run(x, y);
else if (mode === 'compare' && x && y) process.exitCode = compare(x, y);
else {
  console.error('usage: route-snapshot.ts mint DIR | run DIR OUT.json | compare A.json B.json');
  process.exitCode = 2;
}
