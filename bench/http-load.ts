/**
 * HTTP load run of POST /decodeReport with a realistic typeA/typeB mix minted by the test PKIs:
 * the built service (dist/src/main.js) runs as its own process with 1 and then 2 verification
 * workers, a PCCS-compatible server serves the minted typeA collateral, and autocannon drives
 * the load from this process. Prints sustained throughput and p50/p99 latency, then latency at
 * 80% of the measured maximum rate.   Usage: npm run build && npx tsx bench/http-load.ts
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { createTypeBPki, defaultPcrs } from '../test/support/typeb-pki.js';
import { mintTypeAPki } from '../test/support/typea-pki.js';
import { startPccsServer } from '../test/support/pccs-server.js';
import { makeUserData, openEnclaveReport, reportText } from '../test/support/ledger-reports.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const DURATION = Number(process.env.LOAD_SECONDS ?? 10);
const dir = mkdtempSync(join(tmpdir(), 'http-load-'));

// Test PKIs and the request mix: 64 distinct updates, half typeA, half typeB.
const a = mintTypeAPki({ pckTcb: { components: [21, 21, 2, 4, 1, 128, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0], pceSvn: 13, fmspc: '00906ED50000', pceId: '0000' } });
const b = createTypeBPki();
const MRENCLAVE = new Uint8Array(32).fill(0x5a);
const bodies: string[] = [];
for (let i = 0; i < 64; i++) {
  const ud = makeUserData({ attestationData: `${59000 + i}.01000000`, timestamp: 1725008028 + i });
  const rd = new Uint8Array(64);
  rd.set(ud.hash);
  const report = i % 2 === 0 ? reportText(openEnclaveReport(a.quote({ reportData: rd, mrEnclave: MRENCLAVE }))) : reportText(b.mintDocument({ userData: ud.hash }));
  bodies.push(JSON.stringify({ userData: ud.text, report }));
}
const c = a.collateral;
const pccs = await startPccsServer({
  tcbInfo: { '00906ed50000': { body: `{"tcbInfo":${c.tcbInfoRaw},"signature":"${c.tcbInfoSignature}"}`, issuerChain: c.tcbInfoIssuerChain } },
  qeIdentity: { body: `{"enclaveIdentity":${c.qeIdentityRaw},"signature":"${c.qeIdentitySignature}"}`, issuerChain: c.qeIdentityIssuerChain },
  pckCrl: { processor: { derHex: hex(c.pckCrl), issuerChain: c.pckCrlIssuerChain } },
  rootCaCrlHex: hex(c.rootCaCrl),
});
writeFileSync(join(dir, 'a.pem'), a.root.pem);
writeFileSync(join(dir, 'b.pem'), b.rootPem);

function freePort(): Promise<number> {
  return new Promise((res) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => res(p));
    });
  });
}

async function startService(workers: number): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const cfg = join(dir, `config-${workers}.json`);
  writeFileSync(
    cfg,
    JSON.stringify({
      port,
      host: '127.0.0.1',
      liveCheck: { skip: true },
      uniqueIdTarget: hex(MRENCLAVE),
      pcrValuesTarget: defaultPcrs().slice(0, 3).map(hex),
      acceptedTcbStatuses: ['UpToDate'],
      trustedRoots: { typeA: join(dir, 'a.pem'), typeB: join(dir, 'b.pem') },
      verificationTime: new Date(a.time).toISOString(),
      pccsUrl: pccs.url,
      workers,
      maxQueue: 4096,
      logLevel: 'warn',
    }),
  );
  const child = spawn(process.execPath, [resolve('dist/src/main.js'), '--config', cfg], { stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if ((await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200) break;
    if (i > 200) throw new Error('service did not become ready');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    stop: () =>
      new Promise<void>((r) => {
        child.once('exit', () => r());
        child.kill('SIGTERM');
      }),
  };
}

interface Run {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  invalid: number;
}

async function load(url: string, opts: { connections: number; overallRate?: number; seconds: number }): Promise<Run> {
  let i = 0;
  let invalid = 0;
  const r = await autocannon({
    url: `${url}/decodeReport`,
    connections: opts.connections,
    duration: opts.seconds,
    ...(opts.overallRate ? { overallRate: opts.overallRate } : {}),
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req: Record<string, unknown>) => ({ ...req, body: bodies[i++ % bodies.length] }),
        onResponse: (status: number, body: string) => {
          if (status === 200 && !body.includes('"reportValid":true')) invalid++;
        },
      },
    ],
  } as unknown as autocannon.Options);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, invalid };
}

const results: Record<string, Run> = {};
for (const workers of [1, 2]) {
  const svc = await startService(workers);
  await load(svc.url, { connections: 4, seconds: 2 }); // warm caches and JIT
  const max = await load(svc.url, { connections: 8 * workers, seconds: DURATION });
  results[`${workers} worker(s), max`] = max;
  const at80 = await load(svc.url, { connections: 8 * workers, seconds: DURATION, overallRate: Math.max(1, Math.floor(max.rps * 0.8)) });
  results[`${workers} worker(s), 80% of max`] = at80;
  await svc.stop();
}
await pccs.close();

console.log('\nPOST /decodeReport, 50% typeA / 50% typeB, 64 distinct minted updates');
console.log('run'.padEnd(28), 'req/s'.padStart(8), 'p50 ms'.padStart(8), 'p99 ms'.padStart(8), 'p99/p50'.padStart(8), 'non-2xx'.padStart(8), 'invalid'.padStart(8));
for (const [k, v] of Object.entries(results)) {
  console.log(k.padEnd(28), v.rps.toFixed(1).padStart(8), String(v.p50).padStart(8), String(v.p99).padStart(8), (v.p99 / Math.max(1, v.p50)).toFixed(2).padStart(8), String(v.non2xx).padStart(8), String(v.invalid).padStart(8));
}
console.log(JSON.stringify(results));
