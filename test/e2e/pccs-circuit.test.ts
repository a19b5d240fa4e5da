/**
 * The PCCS circuit breaker against a real PCCS process frozen with SIGSTOP (it accepts connections
 * and never answers): the first cold typeA request waits its timeout once (no retries against a
 * PCCS that did not answer), the next ones fail at once as unverifiable while the circuit is open,
 * a probe after the cool-down that gets no answer opens it again for twice as long, and once the
 * process runs again (SIGCONT) one probe closes it and collateral flows. The clock of the circuit
 * is injected: the cool-downs pass without waiting. Through the real server: /decodeReport
 * answers unverifiable at once while the circuit is open, GET /status/pccs shows it open (until
 * when, why) and verifier_pccs_circuit_opens_total counts the opening.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PccsCircuit } from '../../src/collateral/pccsCircuit.js';
import { PccsClient } from '../../src/collateral/pccsClient.js';
import { PccsCollateralSource } from '../../src/collateral/pccsSource.js';
import { parsePemChain } from '../../src/attestation/x509/certificate.js';
import { isVerifierError } from '../../src/errors.js';
import { postJson, startServer, type RunningServer } from '../support/server.js';
import { VECTORS } from '../support/paths.js';
import { startPccsProcess, type PccsProcess } from '../support/pccs-process.js';
import { recordedBundle2026 } from '../support/pccs-server.js';
import { examples, targets } from '../support/nitro-pair.js';

const SGX_MRENCLAVE = '58e26caa30264d74ee496f370cdf0433a82808f13fb26b885d3f1e54dc7a34df';
const FMSPC = '00906ed50000';
/** The client's time limit per request: what the first request waits on a frozen PCCS (no speed is assumed of the machine). */
const TIMEOUT_MS = 3000;
const COOLDOWN_MS = 5000;

let pccs: PccsProcess;
const servers: RunningServer[] = [];

beforeAll(async () => {
  pccs = await startPccsProcess(recordedBundle2026(VECTORS));
});
afterAll(async () => {
  for (const s of servers) await s.close();
  pccs?.child.kill('SIGCONT');
  await pccs?.stop();
});

/** A cold typeA verification's collateral: the four pieces at once, none cached. */
const cold = (src: PccsCollateralSource) => Promise.all([src.tcbInfo(FMSPC), src.qeIdentity(), src.pckCrl('processor'), src.rootCaCrl()]);
const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as Error & { code?: string });

describe('PCCS circuit breaker, PCCS process frozen with SIGSTOP', { timeout: 120_000 }, () => {
  it('the first cold request waits its timeout once, the next fail at once, a probe per cool-down, one answered probe closes it', async () => {
    let now = Date.parse('2026-09-23T00:00:00Z');
    const circuit = new PccsCircuit({ cooldownMs: COOLDOWN_MS, maxCooldownMs: 60_000, now: () => now });
    const exchanges: string[] = [];
    const client = new PccsClient({ baseUrl: pccs.url, timeoutMs: TIMEOUT_MS, retries: 2, backoffMs: 10, circuit, onRequest: (route, status, _ms, detail) => exchanges.push(`${route} ${status} ${detail ?? ''}`) });
    const root = parsePemChain(readFileSync('trust/intel-sgx-root-ca.pem', 'utf8'))[0]!;
    const source = () => new PccsCollateralSource(client, { root, now: () => now });

    // Reachable: a cold request gets every piece.
    await cold(source());
    expect(exchanges.every((e) => / 200 $/.test(e))).toBe(true);
    exchanges.length = 0;

    pccs.child.kill('SIGSTOP');
    // 1. The first cold request: each piece's first attempt waits its timeout; the circuit opens
    //    and the retries are not sent.
    const first = await failure(cold(source()));
    expect(isVerifierError(first) && first.code).toBe('PCCS_UNAVAILABLE');
    expect(first!.message).toMatch(new RegExp(`PCCS circuit is open after no answer within ${TIMEOUT_MS} ms: no request is sent until `));
    expect(exchanges).toHaveLength(4);
    expect(exchanges.every((e) => e.endsWith(`error no answer within ${TIMEOUT_MS} ms`))).toBe(true);
    expect(circuit.view()).toMatchObject({ state: 'open', until: now + COOLDOWN_MS, cooldownMs: COOLDOWN_MS, opens: 1 });

    // 2. While open, cold requests fail at once: nothing is sent.
    for (let i = 0; i < 5; i++) {
      const e = await failure(cold(source()));
      expect(e).toMatchObject({ code: 'PCCS_UNAVAILABLE', message: expect.stringContaining(`no request is sent until ${new Date(now + COOLDOWN_MS).toISOString()}`) });
    }
    expect(exchanges).toHaveLength(4);

    // 3. After the cool-down one request probes (the PCCS is still frozen); the others fail at
    //    once meanwhile; the probe's timeout opens the circuit again for twice as long.
    now += COOLDOWN_MS;
    expect(circuit.state).toBe('half-open');
    const src = source();
    const probe = failure(src.tcbInfo(FMSPC));
    expect(await failure(src.qeIdentity())).toMatchObject({ code: 'PCCS_UNAVAILABLE', message: expect.stringContaining('one request is probing the PCCS now') });
    expect(await probe).toMatchObject({ code: 'PCCS_UNAVAILABLE', message: expect.stringContaining(`no answer within ${TIMEOUT_MS} ms`) });
    expect(exchanges).toHaveLength(5);
    expect(circuit.view()).toMatchObject({ state: 'open', until: now + 2 * COOLDOWN_MS, cooldownMs: 2 * COOLDOWN_MS, opens: 2 });

    // 4. The PCCS runs again: the next probe is answered and closes the circuit; collateral flows.
    pccs.child.kill('SIGCONT');
    now += 2 * COOLDOWN_MS;
    const recovered = source();
    await recovered.qeIdentity();
    expect(circuit.view()).toEqual({ state: 'closed', opens: 2 });
    await cold(recovered);
    expect(exchanges.slice(5).every((e) => / 200 $/.test(e))).toBe(true);
  });

  it('through the server: unverifiable at once while open, /status/pccs shows the circuit, the opening is counted', async () => {
    // A long cool-down: the circuit stays open for the whole test.
    const s = await startServer({
      verificationTime: '2026-09-23T00:00:00Z',
      uniqueIdTarget: SGX_MRENCLAVE,
      pcrValuesTarget: targets.pcrValuesTarget,
      pccsUrl: pccs.url,
      pccsCircuitCooldownMs: 600_000,
      pccsProbeMaxAgeMs: 3_600_000,
    });
    servers.push(s);
    const pccsRequests = async () => {
      const text = await (await fetch(`${s.url}/metrics`)).text();
      return [...text.matchAll(/^verifier_upstream_requests_total\{service="pccs",[^}]*\} (\d+)$/gm)].reduce((a, m) => a + Number(m[1]), 0);
    };
    // The startup probe is answered first: its kept-alive connection is what the frozen PCCS then
    // holds (a request on it must still end at its time limit, not at the server's connection limit).
    await s.pccsProbe;
    const before = await pccsRequests();
    pccs.child.kill('SIGSTOP');
    try {
      // The first typeA request waits for the PCCS client's timeout (one attempt per piece).
      const first = await postJson(`${s.url}/decodeReport`, examples.sgx.request);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ reportValid: false, outcome: 'unverifiable', errorCode: 'PCCS_UNAVAILABLE' });
      expect(first.body.errorString).toMatch(/PCCS circuit is open after no answer within 10000 ms/);
      const sent = await pccsRequests();
      expect(sent - before).toBe(4);
      // The next ones fail at once: no request reaches the PCCS.
      for (let i = 0; i < 3; i++) {
        const r = await postJson(`${s.url}/decodeReport`, examples.sgx.request);
        expect(r.body).toMatchObject({ reportValid: false, outcome: 'unverifiable', errorCode: 'PCCS_UNAVAILABLE', errorString: expect.stringContaining('no request is sent until') });
      }
      expect(await pccsRequests()).toBe(sent);
      const status = (await (await fetch(`${s.url}/status/pccs`)).json()) as { circuit: { until: string } };
      expect(status).toMatchObject({
        configured: true,
        reachable: false,
        errorCode: 'PCCS_UNAVAILABLE',
        error: 'no answer within 10000 ms',
        circuit: { state: 'open', until: expect.any(String), cooldownMs: 600_000, reason: 'no answer within 10000 ms', opens: 1 },
      });
      expect(Date.parse(status.circuit.until)).toBeGreaterThan(Date.now());
      expect(await pccsRequests()).toBe(sent);
      const metrics = await (await fetch(`${s.url}/metrics`)).text();
      expect(metrics).toMatch(/^verifier_pccs_circuit_opens_total 1$/m);
    } finally {
      pccs.child.kill('SIGCONT');
    }
  });
});
