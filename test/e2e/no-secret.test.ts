/**
 * No secret leaves the process (issue 25, item 1). The real server process runs with a secret in
 * the query of every configured URL (pccsUrl, liveCheck.apiBaseUrl) and API keys in
 * PCCS_API_KEY and LEDGER_NODE_API_KEY and an EAR signing key in EAR_SIGNING_KEY; the PCCS answers 503 to everything and the ledger node
 * fails on demand, echoing the request URL (query included) in its error bodies, as some do. Every
 * route is driven — /decodeReport (JSON and EAR: status none) and /verify with a typeA report (the PCCS is asked and fails),
 * /ledger/transactions/{id} answering 200, 404 and 502, /ledger/updates with the watcher's stored
 * records, /ledger/status while the watcher's node fails, /status/pccs, /metrics, /info,
 * /docs/json, the pages — then the store file is read raw and the process's whole log (level
 * trace) is read: no secret is found anywhere, while the PCCS and the node did receive them. A
 * config with userinfo in a URL is refused, naming the key, without printing the credential.
 */
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { fakeId, LedgerChain, t } from '../support/ledger-chain.js';
import { reply, startLedgerNode, type LedgerNode } from '../support/ledger-node.js';
import { mintSgx, type MintedSgx } from '../support/minted-sgx.js';
import { childEnv, runMain, startMain, type ServiceProcess } from '../support/process.js';
import { postJson } from '../support/server.js';
import { until } from '../support/wait.js';

const QUERY_SECRET = 's3cr3t-XYZ';
const PCCS_KEY = 'k3y-PCCS-XYZ';
const NODE_KEY = 'k3y-NODE-XYZ';
/** The EAR signing key (PKCS#8 PEM), and its private scalar as the PEM's body and as a JWK's `d`. */
const EAR_KEY = generateKeyPairSync('ed25519').privateKey;
const EAR_PEM = EAR_KEY.export({ format: 'pem', type: 'pkcs8' }) as string;
const EAR_SECRETS = [EAR_PEM.split('\n')[1]!, EAR_KEY.export({ format: 'jwk' }).d!];
const SECRETS = [QUERY_SECRET, PCCS_KEY, NODE_KEY, ...EAR_SECRETS];
const OFFICIAL = 'official_oracle.aleo';
const START_TIMEOUT_MS = 180_000; // a guard against a hung start, not a synchronisation

let dir: string;
let sgx: MintedSgx;
let node: LedgerNode;
let pccs: Server;
let pccsBase: string;
const pccsSeen: { url: string; key: string | undefined }[] = [];
let typeATx: string;
let svc: ServiceProcess | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'no-secret-'));
  sgx = mintSgx(dir);
  // A PCCS that is there but fails: every collateral request ends in PCCS_UNAVAILABLE (HTTP 503).
  pccs = createServer((req, res) => {
    pccsSeen.push({ url: req.url ?? '', key: req.headers['ocp-apim-subscription-key'] as string | undefined });
    res.writeHead(503, { 'content-type': 'text/plain' }).end(`unavailable: ${req.url}`);
  });
  await new Promise<void>((r) => pccs.listen(0, '127.0.0.1', () => r()));
  pccsBase = `http://127.0.0.1:${(pccs.address() as AddressInfo).port}/sgx/certification/v4/`;
  const chain = new LedgerChain(10, 30);
  const u = sgx.request('2.00000001');
  typeATx = chain.add(12, [t.setDataSgx(OFFICIAL, u.userData, u.report)]).transactionId;
  chain.add(15, [t.transfer()]);
  node = await startLedgerNode();
  chain.install(node);
});

afterAll(async () => {
  if (svc && svc.child.exitCode === null && svc.child.signalCode === null) svc.child.kill('SIGKILL');
  await node?.close();
  await new Promise((r) => pccs?.close(r));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function writeConfig(name: string, cfg: Record<string, unknown>): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(cfg));
  return file;
}

/** Every secret found in `text`, by where. */
const found: { where: string; secret: string }[] = [];
function scan(where: string, text: string): void {
  for (const secret of SECRETS) if (text.includes(secret)) found.push({ where, secret });
}

async function get(url: string, where: string, expectStatus?: number): Promise<{ status: number; text: string }> {
  const r = await fetch(url);
  const text = await r.text();
  scan(where, `${[...r.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}\n${text}`);
  if (expectStatus !== undefined) expect(r.status, `${where}: ${text.slice(0, 300)}`).toBe(expectStatus);
  return { status: r.status, text };
}

describe('no secret leaves the process', { timeout: 600_000 }, () => {
  it('refuses a URL with userinfo at config load, naming the key, never the credential', async () => {
    const cfg = writeConfig('userinfo.json', {
      port: 0,
      ...sgx.config,
      pccsUrl: `http://user:${QUERY_SECRET}@127.0.0.1:1/sgx/certification/v4/`,
      liveCheck: { skip: true, apiBaseUrl: `http://${QUERY_SECRET}@127.0.0.1:1/v1/mainnet` },
    });
    const r = await runMain(['--config', cfg], { timeoutMs: START_TIMEOUT_MS });
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n').sort();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^config: liveCheck\.apiBaseUrl = "http:\/\/127\.0\.0\.1:1\/v1\/mainnet" \(credentials and query not shown\): a URL must not hold credentials \(user:password@\); pass the ledger node's API key in the environment variable LEDGER_NODE_API_KEY/);
    expect(lines[1]).toMatch(/^config: pccsUrl = "http:\/\/127\.0\.0\.1:1\/sgx\/certification\/v4\/" \(credentials and query not shown\): a URL must not hold credentials \(user:password@\); pass an Intel PCS subscription key in the environment variable PCCS_API_KEY/);
    expect(`${r.stdout}${r.stderr}`).not.toContain(QUERY_SECRET);
  });

  it('is found 0 times in answers, stored records, lastError, logs and metrics', async () => {
    const db = join(dir, 'ledger.db');
    const cfg = writeConfig('secrets.json', {
      port: 0,
      host: '127.0.0.1',
      ...sgx.config,
      pccsUrl: `${pccsBase}?apikey=${QUERY_SECRET}`,
      liveCheck: { skip: true, apiBaseUrl: `${node.url}?key=${QUERY_SECRET}`, contractName: 'official_oracle', timeoutMs: 30_000 },
      watch: { enabled: true, database: db, fromHeight: 10, pollIntervalMs: 200, batchBlocks: 10, rps: 1000, retryIntervalMs: 3_600_000 },
      workers: 1,
      logLevel: 'trace',
    });
    svc = await startMain(['--config', cfg], { env: { ...childEnv(), PCCS_API_KEY: PCCS_KEY, LEDGER_NODE_API_KEY: NODE_KEY, EAR_SIGNING_KEY: EAR_PEM }, timeoutMs: START_TIMEOUT_MS });
    const s = svc;

    // The watcher stores the typeA update as unverifiable (the PCCS fails), with the PCCS's message.
    await until('the watcher at the tip', async () => JSON.parse((await get(`${s.url}/ledger/status`, 'GET /ledger/status')).text).scannedHeight === 30, 120_000);
    const updates = JSON.parse((await get(`${s.url}/ledger/updates?limit=500`, 'GET /ledger/updates', 200)).text);
    expect(updates.updates).toHaveLength(1);
    expect(updates.updates[0]).toMatchObject({ outcome: 'unverifiable', errorCode: expect.stringMatching(/^(PCCS_|TYPEA_COLLATERAL)/) });
    expect(updates.updates[0].errorString).toContain(`at ${pccsBase}`);
    await get(`${s.url}/ledger/updates?outcome=unverifiable`, 'GET /ledger/updates?outcome=unverifiable', 200);

    // /decodeReport and /verify with a typeA report: the PCCS is asked and fails.
    const decoded = await postJson(`${s.url}/decodeReport`, sgx.request('3.00000001'));
    scan('POST /decodeReport', JSON.stringify(decoded.body));
    expect(decoded.body).toMatchObject({ reportValid: false, outcome: 'unverifiable' });
    expect(decoded.body.errorString).toContain(pccsBase);
    // The same as an EAR: signed by the published key, status none (unverifiable), no vector claim.
    const ear = await fetch(`${s.url}/decodeReport?format=ear`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sgx.request('3.00000001')) });
    const jwt = await ear.text();
    scan('POST /decodeReport?format=ear', jwt);
    const jwks = JSON.parse((await get(`${s.url}/.well-known/jwks.json`, 'GET /.well-known/jwks.json', 200)).text);
    const { payload } = await jwtVerify(jwt, createLocalJWKSet(jwks), { typ: 'eat+jwt' });
    expect((payload.submods as any).typeA).toMatchObject({ 'ear.status': 'none', 'org.aleo-oracle-verifier.outcome': 'unverifiable', 'org.aleo-oracle-verifier.error-code': decoded.body.errorCode });
    expect((payload.submods as any).typeA['ear.trustworthiness-vector']).toBeUndefined();
    const verified = await postJson(`${s.url}/verify`, { reports: [sgx.response('4.00000001')] });
    scan('POST /verify', JSON.stringify(verified.body));
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ success: false, unverifiableReports: [0] });
    expect(verified.body.reportErrors[0].errorMessage).toContain(pccsBase);

    // Lookups: 200 (its record's PCCS failure), 404 (names the node), 502 (the node echoes the URL).
    const ok = await get(`${s.url}/ledger/transactions/${typeATx}`, 'GET /ledger/transactions (200)', 200);
    expect(JSON.parse(ok.text).updates[0].errorString).toContain(pccsBase);
    const unknown = await get(`${s.url}/ledger/transactions/${fakeId('at', 'unknown')}`, 'GET /ledger/transactions (404)', 404);
    expect(JSON.parse(unknown.text).errorString).toContain(node.url);
    const down = fakeId('at', 'down');
    const echo = `Something went wrong: GET ${node.url}/transaction/${down}?metadata=true&key=${QUERY_SECRET} (key ${NODE_KEY})`;
    node.script(`/transaction/${down}`, [reply.serverError(echo), reply.serverError(echo), reply.serverError(echo)]);
    const bad = await get(`${s.url}/ledger/transactions/${down}`, 'GET /ledger/transactions (502)', 502);
    expect(JSON.parse(bad.text)).toMatchObject({ errorCode: 'LEDGER_NODE_HTTP_ERROR', errorString: expect.stringContaining(`GET ${node.url}/transaction/${down}?metadata=true failed`) });
    // The node did receive the query's secret (and the watcher's requests too).
    expect(node.requestsTo(`/transaction/${down}`).map((r) => r.path)).toEqual(Array(3).fill(`/v1/mainnet/transaction/${down}?metadata=true&key=${QUERY_SECRET}`));

    // The watcher's node fails: /ledger/status shows why.
    node.script('/block/height/latest', Array.from({ length: 500 }, () => reply.serverError(`Something went wrong at ${node.url}/block/height/latest?key=${QUERY_SECRET}`)));
    const failing = await until(
      'the watcher to report the node failing',
      async () => {
        const st = JSON.parse((await get(`${s.url}/ledger/status`, 'GET /ledger/status (node failing)')).text);
        return st.watcher.lastError ? st : undefined;
      },
      180_000,
    );
    expect(failing.watcher.lastError).toMatchObject({ errorCode: 'LEDGER_NODE_HTTP_ERROR', errorString: expect.stringContaining(`${node.url}/block/height/latest`) });
    node.reset();

    // Everything else anyone can read.
    const pccsStatus = JSON.parse((await get(`${s.url}/status/pccs`, 'GET /status/pccs', 200)).text);
    expect(pccsStatus).toMatchObject({ configured: true, url: pccsBase, reachable: false });
    await get(`${s.url}/metrics`, 'GET /metrics', 200);
    await get(`${s.url}/info`, 'GET /info', 200);
    await get(`${s.url}/docs/json`, 'GET /docs/json', 200);
    await get(`${s.url}/healthz`, 'GET /healthz', 200);
    await get(`${s.url}/readyz`, 'GET /readyz', 200);
    await get(`${s.url}/`, 'GET /', 200);
    await get(`${s.url}/ledger`, 'GET /ledger', 200);
    await get(`${s.url}/no/such/path?x=1`, 'GET (404)', 404);

    expect(await s.stop('SIGTERM')).toBe(0);
    scan('stdout (log, level trace)', s.stdout());
    scan('stderr', s.stderr());
    // The store, raw: the database and any journal beside it.
    for (const f of [db, `${db}-wal`, `${db}-shm`]) if (existsSync(f)) scan(`store file ${f}`, readFileSync(f).toString('latin1'));
    expect(readFileSync(db).toString('latin1')).toContain(pccsBase); // the stored messages are there, without the secret

    expect(found).toEqual([]);
    // The secrets were real: the PCCS and the node received them.
    expect(pccsSeen.some((r) => r.url.includes(`apikey=${QUERY_SECRET}`) && r.key === PCCS_KEY)).toBe(true);
  });
});
