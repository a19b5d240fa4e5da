/**
 * The PCCS circuit breaker on an injected clock: a request without answer opens it, requests fail
 * at once (sending nothing) until the cool-down ends, one probe at a time, a failed probe doubles
 * the cool-down up to the cap, an answer closes it; the client's retries stop at an open circuit,
 * requests to other hosts pass; GET /status/pccs's tracker sends no probe while it is open.
 */
import { describe, expect, it } from 'vitest';
import { PccsCircuit, type CircuitTicket } from '../../../src/collateral/pccsCircuit.js';
import { PccsClient } from '../../../src/collateral/pccsClient.js';
import { PccsStatus, pccsStatusReport } from '../../../src/collateral/pccsStatus.js';
import { isVerifierError } from '../../../src/errors.js';

const ticket = (c: PccsCircuit): CircuitTicket => {
  const t = c.admit();
  if ('refused' in t) throw new Error(`refused: ${t.refused}`);
  return t;
};

describe('PccsCircuit', () => {
  it('opens on a request without answer, refuses until the cool-down ends, then lets one probe through', () => {
    let now = 1_000_000;
    const opened: [number, number, string][] = [];
    const c = new PccsCircuit({ cooldownMs: 5000, maxCooldownMs: 30_000, now: () => now, onOpen: (...a) => opened.push(a) });
    expect(c.view()).toEqual({ state: 'closed', opens: 0 });
    const a = ticket(c);
    const b = ticket(c);
    c.failed(a, 'no answer within 10000 ms');
    expect(c.view()).toEqual({ state: 'open', until: now + 5000, cooldownMs: 5000, reason: 'no answer within 10000 ms', opens: 1 });
    expect(opened).toEqual([[now + 5000, 5000, 'no answer within 10000 ms']]);
    // A request sent before it opened fails later: no second opening, the cool-down does not move.
    now += 1000;
    c.failed(b, 'no answer within 10000 ms');
    expect(c.view()).toMatchObject({ state: 'open', until: 1_005_000, opens: 1 });
    const refused = c.admit();
    expect(refused).toEqual({ refused: expect.stringMatching(/^the PCCS circuit is open after no answer within 10000 ms: no request is sent until 1970-01-01T00:16:45\.000Z, when one request probes the PCCS again \(cool-down 5000 ms\)$/) });
    expect(c.refusing).toBe(true);

    now = 1_005_000;
    expect(c.state).toBe('half-open');
    expect(c.refusing).toBe(false);
    const probe = ticket(c);
    expect(probe.probe).toBe(true);
    // One probe at a time.
    expect(c.admit()).toEqual({ refused: expect.stringMatching(/half-open .*one request is probing the PCCS now/) });
    expect(c.refusing).toBe(true);
    c.answered(probe);
    expect(c.view()).toEqual({ state: 'closed', opens: 1 });
    expect(ticket(c).probe).toBe(false);
  });

  it('a failed probe doubles the cool-down up to the cap; an answer resets it', () => {
    let now = 0;
    const c = new PccsCircuit({ cooldownMs: 5000, maxCooldownMs: 30_000, now: () => now });
    c.failed(ticket(c), 'connection failed (ECONNREFUSED)');
    const seen: number[] = [];
    for (let i = 0; i < 5; i++) {
      now = c.view().until!;
      c.failed(ticket(c), 'no answer within 10000 ms');
      seen.push(c.view().cooldownMs!);
      expect(c.view().until).toBe(now + c.view().cooldownMs!);
    }
    expect(seen).toEqual([10_000, 20_000, 30_000, 30_000, 30_000]);
    expect(c.opens).toBe(6);
    now = c.view().until!;
    c.answered(ticket(c));
    c.failed(ticket(c), 'no answer within 10000 ms');
    expect(c.view().cooldownMs).toBe(5000);
  });

  it('an answer of a request sent before it opened closes it (the PCCS is there)', () => {
    const c = new PccsCircuit({ cooldownMs: 5000, maxCooldownMs: 30_000, now: () => 0 });
    const early = ticket(c);
    c.failed(ticket(c), 'no answer within 10000 ms');
    expect(c.state).toBe('open');
    c.answered(early);
    expect(c.state).toBe('closed');
  });
});

describe('PccsClient with a circuit breaker', () => {
  const refusedConnection = () => Promise.reject(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } }));
  const BASE = 'http://pccs.test/sgx/certification/v4/';

  it('stops retrying at an open circuit, sends nothing while it is open, and one probe closes it', async () => {
    let now = 0;
    const circuit = new PccsCircuit({ cooldownMs: 5000, maxCooldownMs: 60_000, now: () => now });
    const sent: string[] = [];
    let answer: () => Promise<Response> = refusedConnection;
    const client = new PccsClient({
      baseUrl: BASE,
      backoffMs: 1,
      circuit,
      fetchImpl: (async (url: string | URL) => {
        sent.push(String(url));
        return answer();
      }) as typeof fetch,
    });
    const first = await client.qeIdentity().catch((e: unknown) => e);
    expect(isVerifierError(first) && first.code).toBe('PCCS_UNAVAILABLE');
    expect((first as Error).message).toMatch(/the PCCS circuit is open after connection failed \(fetch failed: ECONNREFUSED\): no request is sent until 1970-01-01T00:00:05\.000Z/);
    // One attempt reached the PCCS; its retries met the open circuit.
    expect(sent).toHaveLength(1);
    for (const call of [() => client.qeIdentity(), () => client.tcbInfo('00906ed50000'), () => client.pckCrl('processor')]) {
      await expect(call()).rejects.toMatchObject({ code: 'PCCS_UNAVAILABLE', message: expect.stringContaining('circuit is open') });
    }
    expect(sent).toHaveLength(1);
    // The probe of GET /status/pccs is held back too.
    await expect(client.probe(1000)).rejects.toMatchObject({ code: 'PCCS_UNAVAILABLE' });
    expect(sent).toHaveLength(1);

    // After the cool-down the PCCS is back: one request probes it and closes the circuit.
    now = 5000;
    answer = async () => new Response('{}', { status: 404 });
    await expect(client.qeIdentity()).rejects.toMatchObject({ code: 'PCCS_NOT_FOUND' });
    expect(circuit.state).toBe('closed');
    expect(sent).toHaveLength(2);
  });

  it('requests to other hosts (the root CA CRL distribution point) do not pass through the circuit', async () => {
    const circuit = new PccsCircuit({ cooldownMs: 5000, maxCooldownMs: 60_000, now: () => 0 });
    circuit.failed(ticket(circuit), 'no answer within 10000 ms');
    const sent: string[] = [];
    const client = new PccsClient({
      baseUrl: BASE,
      retries: 0,
      circuit,
      rootCaCrlUrl: 'http://crl.test/root.der',
      fetchImpl: (async (url: string | URL) => {
        sent.push(String(url));
        return new Response(new Uint8Array([1, 2]), { status: 200 });
      }) as typeof fetch,
    });
    // rootcacrl on the PCCS is refused (not a 404), so the other host is not asked either.
    await expect(client.rootCaCrl()).rejects.toMatchObject({ code: 'PCCS_UNAVAILABLE' });
    expect(sent).toEqual([]);
  });
});

describe('PccsStatus with a circuit breaker', () => {
  it('sends no probe while the circuit is open, shows its state, and probes once it is half-open', async () => {
    let now = 0;
    const circuit = new PccsCircuit({ cooldownMs: 5000, maxCooldownMs: 60_000, now: () => now });
    let probes = 0;
    const client = new PccsClient({
      baseUrl: 'http://pccs.test/sgx/certification/v4/',
      circuit,
      onRequest: (...a) => tracker.observe(...a),
      fetchImpl: (async () => {
        probes++;
        return new Response('', { status: 200 });
      }) as typeof fetch,
    });
    const tracker: PccsStatus = new PccsStatus({ baseUrl: client.baseUrl, maxAgeMs: 1000, probe: () => client.probe(1000), circuit, now: () => now });
    tracker.observe('qe/identity', 'error', 10_000, 'no answer within 10000 ms');
    circuit.failed(ticket(circuit), 'no answer within 10000 ms');
    now = 2000; // the observation is stale, the circuit still open
    const open = await pccsStatusReport(tracker, false);
    expect(probes).toBe(0);
    expect(open).toMatchObject({
      reachable: false,
      error: 'no answer within 10000 ms',
      circuit: { state: 'open', until: '1970-01-01T00:00:05.000Z', cooldownMs: 5000, reason: 'no answer within 10000 ms', opens: 1 },
    });
    now = 5000;
    const closed = await pccsStatusReport(tracker, false);
    expect(probes).toBe(1);
    expect(closed).toMatchObject({ reachable: true, circuit: { state: 'closed', opens: 1 } });
  });
});
