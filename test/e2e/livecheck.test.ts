import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { liveCheck, type LiveCheckOptions } from '../../src/startup/liveCheck.js';
import { reply, startLedgerNode, type LedgerNode } from '../support/ledger-node.js';
import { readVectorJson } from '../support/paths.js';
import { rejection } from '../support/errors.js';

interface ProductionTargets {
  uniqueIdTargetHex: string;
  pcrValuesTargetHex: string[];
  ledgerEncoded: { uniqueId: string; pcrs: string };
}
const targets = readVectorJson<ProductionTargets>('production-targets.json');

const PROGRAM = 'official_oracle.aleo';
const UID = 'sgx_unique_id';
const PCR = 'nitro_pcr_values';
const UID_PATH = `/program/${PROGRAM}/mapping/${UID}/0u8`;
const PCR_PATH = `/program/${PROGRAM}/mapping/${PCR}/0u8`;

const bytes = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h, 'hex'));
const expected = { typeA: bytes(targets.uniqueIdTargetHex), typeB: targets.pcrValuesTargetHex.map(bytes) };

/** Leo struct text of `data` cut into 16-byte little-endian u128 fields named `keys`. */
function leoText(data: Uint8Array, keys: string[]): string {
  const fields = keys.map((k, i) => {
    let v = 0n;
    for (let j = 15; j >= 0; j--) v = (v << 8n) | BigInt(data[16 * i + j]!);
    return `${k}: ${v}u128`;
  });
  return `{ ${fields.join(', ')} }`;
}
const PCR_KEYS = [0, 1, 2].flatMap((p) => [1, 2, 3].map((c) => `pcr_${p}_chunk_${c}`));


describe('liveCheck against a ledger-node simulator', () => {
  let node: LedgerNode;
  let opts: LiveCheckOptions;

  beforeAll(async () => {
    node = await startLedgerNode({ prefix: '/v1/mainnet' });
  });
  afterAll(async () => {
    await node.close();
  });
  const reset = (): void => {
    node.reset();
    node.setMapping(PROGRAM, UID, '0u8', targets.ledgerEncoded.uniqueId, 'pretty');
    node.setMapping(PROGRAM, PCR, '0u8', targets.ledgerEncoded.pcrs, 'pretty');
    opts = {
      apiBaseUrl: node.url,
      contractName: PROGRAM,
      mappings: { typeA: UID, typeB: PCR },
      timeoutMs: 30_000, // generous: only the timeout test is about timeouts
      expected,
      retries: 2,
      backoffMs: 5,
      maxBackoffMs: 50,
    };
  };
  afterEach(reset);
  beforeAll(reset);

  it('matches the production values served pretty-printed (multi-line)', async () => {
    const body = await (await fetch(`${node.url}${UID_PATH}`)).json();
    expect(body).toContain('\n  chunk_1: 31929802673692760512905395015836068420u128,\n');
    node.requests.length = 0;

    const got = await liveCheck(opts);
    expect(Buffer.from(got.typeA!).toString('hex')).toBe(targets.uniqueIdTargetHex);
    expect(got.typeB!.map((p) => Buffer.from(p).toString('hex'))).toEqual(targets.pcrValuesTargetHex);
    expect(node.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /v1/mainnet${UID_PATH}`,
      `GET /v1/mainnet${PCR_PATH}`,
    ]);
  });

  it('matches single-line values; appends .aleo; trims trailing slashes of the base', async () => {
    node.setMapping(PROGRAM, UID, '0u8', targets.ledgerEncoded.uniqueId, 'single');
    node.setMapping(PROGRAM, PCR, '0u8', targets.ledgerEncoded.pcrs, 'single');
    const got = await liveCheck({ ...opts, apiBaseUrl: `${node.url}//`, contractName: 'official_oracle' });
    expect(got.typeB).toHaveLength(3);
    expect(node.requests.map((r) => r.path)).toEqual([`/v1/mainnet${UID_PATH}`, `/v1/mainnet${PCR_PATH}`]);
  });

  it('works with a legacy /{network} prefix and URL-encodes path parts', async () => {
    const legacy = await startLedgerNode({ prefix: '/mainnet' });
    try {
      legacy.setMapping('odd name.aleo', UID, '0u8', targets.ledgerEncoded.uniqueId);
      legacy.setMapping('odd name.aleo', PCR, '0u8', targets.ledgerEncoded.pcrs);
      await liveCheck({ ...opts, apiBaseUrl: legacy.url, contractName: 'odd name' });
      expect(legacy.requests[0]?.path).toBe(`/mainnet/program/odd%20name.aleo/mapping/${UID}/0u8`);
    } finally {
      await legacy.close();
    }
  });

  it('fails when the mapping value is absent (JSON null), naming program and mapping', async () => {
    node.setMapping(PROGRAM, PCR, '0u8', null);
    const e = await rejection(liveCheck(opts));
    expect(e.code).toBe('LIVECHECK_VALUE_ABSENT');
    expect(e.message).toContain(`${PCR}[0u8] on ${PROGRAM}`);
    expect(node.requestsTo(PCR_PATH)).toHaveLength(1);
  });

  it('retries after a 500 and then succeeds', async () => {
    node.script(UID_PATH, [reply.serverError()]);
    await liveCheck(opts);
    expect(node.requestsTo(UID_PATH)).toHaveLength(2);
  });

  it('retries after a dropped connection and then succeeds', async () => {
    node.script(PCR_PATH, [reply.hangUp()]);
    await liveCheck(opts);
    expect(node.requestsTo(PCR_PATH)).toHaveLength(2);
  });

  it('honours Retry-After on 429 (capped by maxBackoffMs) and then succeeds', async () => {
    node.script(UID_PATH, [reply.tooManyRequests('120')]);
    await liveCheck({ ...opts, backoffMs: 1, maxBackoffMs: 300 });
    const [first, second] = node.requestsTo(UID_PATH);
    expect(second).toBeDefined();
    const gap = second!.at - first!.at;
    expect(gap).toBeGreaterThanOrEqual(250); // Retry-After, not the 1 ms backoff
    expect(gap).toBeLessThan(120_000); // capped: not the two minutes asked for
  });

  it('treats a plain-text rate-limit answer with status 200 as rate limiting and retries', async () => {
    node.script(PCR_PATH, [reply.rateLimitText(), reply.rateLimitText()]);
    await liveCheck(opts);
    expect(node.requestsTo(PCR_PATH)).toHaveLength(3);
  });

  it('gives up on a persistent 500 after the bounded retries', async () => {
    node.script(UID_PATH, Array.from({ length: 10 }, () => reply.serverError('database unavailable')));
    const e = await rejection(liveCheck(opts));
    expect(e.code).toBe('LEDGER_NODE_HTTP_ERROR');
    expect(e.message).toContain('after 3 attempts');
    expect(e.message).toContain('status 500');
    expect(e.message).toContain('database unavailable');
    expect(node.requestsTo(UID_PATH)).toHaveLength(3);
    expect(node.requestsTo(PCR_PATH)).toHaveLength(0);
  });

  it('waits out rate limits without spending its retries, and gives up only past its patience', async () => {
    // "Wait for 1s" each time: the second wait would pass the 1.5 s patience
    node.script(UID_PATH, Array.from({ length: 10 }, () => reply.rateLimitText()));
    const e = await rejection(liveCheck({ ...opts, retries: 0, maxBackoffMs: 2000, rateLimitPatienceMs: 1500 }));
    expect(e.code).toBe('LEDGER_NODE_RATE_LIMITED');
    expect(e.message).toContain('rateLimitPatienceMs 1500');
    expect(node.requestsTo(UID_PATH)).toHaveLength(2);
  });

  it("snarkOS v1's rate limit (500, body ending \"(HTTP 429)\", no Retry-After) is waited out as asked, never a failure", async () => {
    node.script(UID_PATH, [reply.v1RateLimit(1), reply.v1RateLimit(1)]);
    // no retries at all: a rate limit is not a failed attempt
    await liveCheck({ ...opts, retries: 0, backoffMs: 1, maxBackoffMs: 2000 });
    const [first, second, third] = node.requestsTo(UID_PATH);
    expect(third).toBeDefined();
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(900); // the body's "Wait for 1s", not the 1 ms backoff
  });

  it('does not retry a 404', async () => {
    node.script(UID_PATH, [reply.text(404, '{"message":"not found"}')]);
    const e = await rejection(liveCheck(opts));
    expect(e.code).toBe('LEDGER_NODE_HTTP_ERROR');
    expect(e.message).toContain('status 404');
    expect(node.requestsTo(UID_PATH)).toHaveLength(1);
  });

  it('fails with a timeout when the node answers too slowly', async () => {
    // The node answers after a minute, the limit is 100 ms: it fires first however loaded the
    // machine. The overall deadline is set apart so that a late timer cannot shorten the second
    // attempt's limit (by default it is derived from timeoutMs, here only 250 ms).
    node.script(UID_PATH, [reply.slow(60_000), reply.slow(60_000)]);
    const e = await rejection(liveCheck({ ...opts, timeoutMs: 100, retries: 1, deadlineMs: 60_000 }));
    expect(e.code).toBe('LEDGER_NODE_TIMEOUT');
    expect(e.message).toContain('within 100 ms');
    expect(node.requestsTo(UID_PATH)).toHaveLength(2);
  });

  it('stops retrying when the overall deadline would pass', async () => {
    node.script(UID_PATH, Array.from({ length: 5 }, () => reply.serverError()));
    // a minute's backoff cannot fit in a 30 s deadline, however fast or slow the first answer
    const e = await rejection(liveCheck({ ...opts, retries: 4, backoffMs: 60_000, maxBackoffMs: 60_000, deadlineMs: 30_000 }));
    expect(e.code).toBe('LEDGER_NODE_HTTP_ERROR');
    expect(e.message).toContain('overall deadline of 30000 ms');
    expect(node.requestsTo(UID_PATH)).toHaveLength(1);
  });

  it('fails on a malformed value with the parser reason', async () => {
    node.setMapping(PROGRAM, UID, '0u8', '{ chunk_1: 5u128 }');
    const e = await rejection(liveCheck(opts));
    expect(e.code).toBe('LIVECHECK_BAD_VALUE');
    expect(e.message).toContain(`${UID}[0u8] on ${PROGRAM}`);
  });

  it('reports a unique-ID mismatch with both values in hex', async () => {
    const other = '5ac690ee17c61fd662defda61e2fa0497c700dc9c55728da5831c4beaa40e91a';
    node.setMapping(PROGRAM, UID, '0u8', leoText(bytes(other), ['chunk_1', 'chunk_2']));
    const e = await rejection(liveCheck(opts));
    expect(e.code).toBe('LIVECHECK_MISMATCH');
    expect(e.message).toBe(
      `liveCheck: ${UID}[0u8] on ${PROGRAM} is ${other} but the target unique ID is ${targets.uniqueIdTargetHex}`,
    );
  });

  it('reports a PCR mismatch with both values in hex', async () => {
    const pcrs = targets.pcrValuesTargetHex.map(bytes);
    const pcr1 = pcrs[1]!;
    pcr1[47] = pcr1[47]! ^ 0x01;
    node.setMapping(PROGRAM, PCR, '0u8', leoText(Buffer.concat(pcrs), PCR_KEYS));
    const e = await rejection(liveCheck(opts));
    expect(e.code).toBe('LIVECHECK_MISMATCH');
    const got = Buffer.from(pcrs[1]!).toString('hex');
    expect(e.message).toBe(
      `liveCheck: ${PCR}[0u8] on ${PROGRAM} has PCR1 ${got} but the target PCR1 is ${targets.pcrValuesTargetHex[1]}`,
    );
    expect(e.message).not.toContain('PCR0');
  });

  it('passes when the ledger holds an accepted build instead of the target, and says which', async () => {
    const other = '5ac690ee17c61fd662defda61e2fa0497c700dc9c55728da5831c4beaa40e91a';
    node.setMapping(PROGRAM, UID, '0u8', leoText(bytes(other), ['chunk_1', 'chunk_2']));
    const found: unknown[] = [];
    const accepted = { typeA: [{ value: bytes('11'.repeat(32)), source: 'a build the ledger does not hold' }, { value: bytes(other), source: 'the older build' }] };
    const got = await liveCheck({ ...opts, accepted, onAccepted: (a) => found.push(a) });
    expect(Buffer.from(got.typeA!).toString('hex')).toBe(other);
    expect(found).toEqual([{ kind: 'typeA', target: 'uniqueIdTarget', program: PROGRAM, mapping: UID, source: 'the older build' }]);
  });

  it('fails when the ledger holds neither the target nor an accepted build, and says so', async () => {
    const other = '5ac690ee17c61fd662defda61e2fa0497c700dc9c55728da5831c4beaa40e91a';
    node.setMapping(PROGRAM, UID, '0u8', leoText(bytes(other), ['chunk_1', 'chunk_2']));
    const found: unknown[] = [];
    const accepted = { typeA: [{ value: bytes('11'.repeat(32)), source: 'another build' }], typeB: [{ value: expected.typeB, source: 'the same PCRs' }] };
    const e = await rejection(liveCheck({ ...opts, accepted, onAccepted: (a) => found.push(a) }));
    expect(e.code).toBe('LIVECHECK_MISMATCH');
    expect(e.message).toBe(
      `liveCheck: ${UID}[0u8] on ${PROGRAM} is ${other} but the target unique ID is ${targets.uniqueIdTargetHex}, nor any of the 1 acceptedBuilds of uniqueIdTarget`,
    );
    expect(found).toEqual([]); // the PCRs equal the target: no accepted build was needed there
  });

  it('rejects malformed targets before querying', async () => {
    const e = await rejection(liveCheck({ ...opts, expected: { typeA: new Uint8Array(31), typeB: expected.typeB } }));
    expect(e.code).toBe('LIVECHECK_BAD_TARGET');
    expect(node.requests).toHaveLength(0);
  });
});

describe('liveCheck of an era-4 program (mappings in its data program, SGX only)', () => {
  const INTERFACE = 'veru_oracle_interface_v5.aleo';
  const DATA = 'veru_oracle_data_v5.aleo';
  let node: LedgerNode;
  beforeAll(async () => {
    node = await startLedgerNode({ prefix: '/v1/mainnet' });
  });
  afterAll(async () => {
    await node.close();
  });
  const opts = (): LiveCheckOptions => ({ apiBaseUrl: node.url, contractName: 'veru_oracle_interface_v5', mappings: { typeA: UID, typeB: PCR }, timeoutMs: 2000, expected, retries: 0 });

  it('reads sgx_unique_id[0u8] of the data program and no PCR mapping', async () => {
    node.reset();
    node.setMapping(DATA, UID, '0u8', targets.ledgerEncoded.uniqueId, 'pretty');
    const got = await liveCheck(opts());
    expect(Buffer.from(got.typeA!).toString('hex')).toBe(targets.uniqueIdTargetHex);
    expect(got.typeB).toBeUndefined();
    expect(node.requests.map((r) => r.path)).toEqual([`/v1/mainnet/program/${DATA}/mapping/${UID}/0u8`]);
  });

  it('names the data program in a mismatch', async () => {
    node.reset();
    const other = '5ac690ee17c61fd662defda61e2fa0497c700dc9c55728da5831c4beaa40e91a';
    node.setMapping(DATA, UID, '0u8', leoText(bytes(other), ['chunk_1', 'chunk_2']));
    const e = await rejection(liveCheck(opts()));
    expect(e.code).toBe('LIVECHECK_MISMATCH');
    expect(e.message).toBe(`liveCheck: ${UID}[0u8] on ${DATA} is ${other} but the target unique ID is ${targets.uniqueIdTargetHex}`);
    expect(node.requests.every((r) => !r.path.includes(INTERFACE))).toBe(true);
  });
});
