/**
 * The docker-compose topology without Docker: two real service processes (src/main.ts) behind a
 * real nginx running deploy/nginx.conf (only ports and file paths substituted). A bounded run of
 * POST /decode requests with the README example goes through nginx; one replica is SIGKILLed in
 * the middle. Every request must still get the correct 200 answer: requests that were in flight
 * on the killed replica, or sent to it before nginx noticed, are retried on the survivor
 * (`proxy_next_upstream error timeout http_502 http_503 non_idempotent`, which deploy/nginx.conf
 * documents as safe because verification is a pure function of the body).
 *
 * Needs the nginx binary (Debian package `nginx`). Skipped with a message only outside CI.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findNginx, freePort, startNginx, startReplica, type NginxProcess, type Replica } from '../support/nginx.js';
import { readVectorJson } from '../support/paths.js';
import { until } from '../support/wait.js';

const TOTAL = 400;
const CONCURRENCY = 8;
const KILL_AFTER = 150; // completed requests before replica B is killed

const nginxBin = findNginx();
const inCi = process.env.CI === 'true';
if (!nginxBin && !inCi) {
  console.warn('nginx-lb.test.ts SKIPPED: no nginx binary (install the Debian package `nginx`, or set NGINX_BIN). In CI (CI=true) this test fails instead.');
}

const targets = readVectorJson<any>('production-targets.json');
const decodeReq = readVectorJson<any>('aleo/decode-example.request.json');
const decodeRes = readVectorJson<any>('aleo/decode-example.response.json');

describe.skipIf(!nginxBin && !inCi)('nginx in front of two replicas (deploy/nginx.conf)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'verifier-nginx-'));
  let a: Replica | undefined;
  let b: Replica | undefined;
  let nginx: NginxProcess | undefined;

  beforeAll(async () => {
    if (!nginxBin) throw new Error('CI=true but no nginx binary found (PATH, /usr/sbin/nginx, $NGINX_BIN): install the Debian package `nginx`');
    const config = { port: 0, host: '127.0.0.1', uniqueIdTarget: targets.uniqueIdTarget, pcrValuesTarget: targets.pcrValuesTarget, liveCheck: { skip: true }, logLevel: 'info' };
    const cfg = join(dir, 'config.json');
    writeFileSync(cfg, JSON.stringify(config));
    [a, b] = await Promise.all([startReplica(cfg), startReplica(cfg)]);
    nginx = await startNginx(nginxBin, dir, { listenPort: await freePort(), upstreams: [a.port, b.port] });
  }, 240_000); // two replicas start from TypeScript sources: slow on a loaded machine, and not what is tested

  afterAll(async () => {
    await nginx?.stop();
    await a?.stop();
    await b?.stop('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const post = async (url: string, body: string) => {
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    return { status: r.status, requestId: r.headers.get('x-request-id'), text: await r.text() };
  };

  it('answers every request correctly while a replica dies mid-run; the survivor takes over', async () => {
    const A = `127.0.0.1:${a!.port}`;
    const B = `127.0.0.1:${b!.port}`;
    const body = JSON.stringify(decodeReq);
    // The reference answer, straight from a replica; it is the README's documented result.
    const direct = await post(`${a!.url}/decode`, body);
    expect(direct.status).toBe(200);
    const expected = JSON.parse(direct.text);
    expect(expected.success).toBe(true);
    expect(expected.decodedData).toEqual(decodeRes.decodedData);
    const directOnA = 1;

    interface Result { i: number; status: number; requestId: string | null; text: string; afterKill: boolean }
    const results: Result[] = [];
    let next = 0;
    let completed = 0;
    let killed = false;
    const worker = async () => {
      for (;;) {
        const i = next++;
        if (i >= TOTAL) return;
        const afterKill = killed;
        const r = await post(`${nginx!.url}/decode`, body);
        results.push({ i, ...r, afterKill });
        if (++completed === KILL_AFTER) {
          b!.child.kill('SIGKILL');
          killed = true;
        }
      }
    };
    const t0 = Date.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const seconds = (Date.now() - t0) / 1000;

    // 1. every request: 200 and the correct decode result
    expect(results).toHaveLength(TOTAL);
    const wrong = results.filter((r) => r.status !== 200 || JSON.stringify(JSON.parse(r.text)) !== JSON.stringify(expected));
    expect(wrong.map((r) => `${r.i}: ${r.status} ${r.text.slice(0, 200)}`)).toEqual([]);
    expect(b!.child.signalCode).toBe('SIGKILL');

    // 2. nginx's own record of which replica answered each request (request ids from the responses)
    // access log lines are written after the response: wait until nginx has logged every request
    const entries = await until('nginx to log every /decode request', () => {
      const e = nginx!.accessLog().filter((x) => x.uri === '/decode');
      return e.length >= TOTAL && e;
    });
    const log = new Map(entries.map((e) => [e.request_id, e]));
    expect(log.size).toBe(TOTAL);
    const tried = (id: string | null) => {
      const e = log.get(id ?? '');
      if (!e) throw new Error(`request id ${id} not in the access log`);
      expect(e.status).toBe(200);
      return e.upstream.split(/,\s*/);
    };
    const last = (id: string | null) => tried(id).at(-1);

    // both replicas served before the kill
    const beforeKill = results.filter((r) => !r.afterKill);
    const servedBefore = { A: beforeKill.filter((r) => last(r.requestId) === A).length, B: beforeKill.filter((r) => last(r.requestId) === B).length };
    expect(servedBefore.A).toBeGreaterThanOrEqual(20);
    expect(servedBefore.B).toBeGreaterThanOrEqual(20);
    // the survivor answered everything sent after the kill
    const afterKill = results.filter((r) => r.afterKill);
    expect(afterKill.length).toBeGreaterThan(TOTAL - KILL_AFTER - CONCURRENCY);
    expect(afterKill.filter((r) => last(r.requestId) !== A).map((r) => `${r.i}: ${tried(r.requestId).join(', ')}`)).toEqual([]);
    // the documented retry: at least one POST went to the dead replica first and was retried on A
    const retried = results.filter((r) => tried(r.requestId).length > 1);
    expect(retried.length).toBeGreaterThanOrEqual(1);
    for (const r of retried) {
      expect(tried(r.requestId)).toEqual([B, A]);
      expect(log.get(r.requestId!)!.upstream_status).toMatch(/^50[24], 200$/);
    }
    // nothing was tried more than twice (proxy_next_upstream_tries bounds it anyway)
    expect(Math.max(...results.map((r) => tried(r.requestId).length))).toBeLessThanOrEqual(2);

    // 3. cross-check with the survivor's own log: it received exactly the requests nginx says it sent there
    await a!.stop('SIGTERM');
    const incomingA = a!.logs.filter((l) => l.msg === 'incoming request' && l.req?.method === 'POST' && l.req?.url === '/decode').length;
    const viaNginxToA = results.filter((r) => tried(r.requestId).includes(A)).length;
    expect(incomingA - directOnA).toBe(viaNginxToA);
    // and the killed replica never received more than nginx attributed to it
    const incomingB = b!.logs.filter((l) => l.msg === 'incoming request' && l.req?.method === 'POST' && l.req?.url === '/decode').length;
    const viaNginxToB = results.filter((r) => tried(r.requestId).includes(B)).length;
    // (no lower bound: B was SIGKILLed, so its last log lines may never have reached the pipe)
    expect(incomingB).toBeLessThanOrEqual(viaNginxToB);

    console.info(`nginx-lb: ${TOTAL} requests in ${seconds.toFixed(2)} s (${(TOTAL / seconds).toFixed(0)} req/s, concurrency ${CONCURRENCY}); before kill A=${servedBefore.A} B=${servedBefore.B}; after kill ${afterKill.length} all on A; retried ${retried.length}`);
  }, 240_000);

  it('answers its own errors as JSON: body over the app limit (256 KiB), no replica left, /metrics hidden', async () => {
    const big = JSON.stringify({ userData: 'x'.repeat(300 * 1024) });
    const r = await fetch(`${nginx!.url}/decode`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
    expect(r.status).toBe(413);
    expect(await r.json()).toEqual({ success: false, errorString: 'request body is larger than the limit', errorCode: 'HTTP_BODY_TOO_LARGE' });
    // both replicas are down now (B killed, A stopped by the previous test): bounded tries, then 502
    expect(a!.child.exitCode !== null || a!.child.signalCode !== null).toBe(true);
    const none = await fetch(`${nginx!.url}/decodeReport`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(none.status).toBe(502);
    expect(none.headers.get('retry-after')).toBe('1');
    expect(await none.json()).toEqual({ reportValid: false, outcome: 'unverifiable', errorString: 'no verifier replica is available', errorCode: 'HTTP_UPSTREAM_UNAVAILABLE' });
    // bounded: nginx's record shows at most proxy_next_upstream_tries (3) attempts, then the 502
    const entry = await until('nginx to log the /decodeReport request', () => nginx!.accessLog().find((e) => e.uri === '/decodeReport'));
    expect(entry.status).toBe(502);
    expect(entry.upstream.split(/,\s*/).length).toBeLessThanOrEqual(3);
    const m = await fetch(`${nginx!.url}/metrics`);
    expect(m.status).toBe(404);
  });
});
