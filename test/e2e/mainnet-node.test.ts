/**
 * The mainnet-shaped ledger node (test/support/mainnet-node.ts) serves what it claims, so that the
 * audit-scale benchmark cannot silently measure something else: blocks of mainnet's size with an
 * authority in snarkVM's shape and order, pretty-printed as snarkOS prints them, mainnet's
 * transaction density with an oracle update every 100 blocks, `/blocks/transactions` holding each
 * block's transactions, every prefix, snarkOS's range errors and rate-limit forms on v1 and v2, and
 * the mapping routes answering from the updates placed (a program no update calls does not exist),
 * `/block/{h}/header`, and block times that hold each update's attestation time (what the
 * completeness check's windows need). Both nodes run as their own processes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMintedCliEnv, type MintedCliEnv } from '../support/minted-cli.js';
import { MRENCLAVE } from '../support/ledger-fixture.js';
import { mainnetUpdates } from '../support/mainnet-updates.js';
import { startMainnetNodeProcess, type MainnetNodeProcess, type MainnetNodeSpec, type MainnetUpdate } from '../support/mainnet-node.js';
import { PROGRAMS, updateKindOf } from '../../src/ledger/programs.js';
import { updateWrites } from '../../src/ledger/records/mappingWrites.js';

const BATCH_HEADER_KEYS = ['batch_id', 'author', 'round', 'timestamp', 'committee_id', 'transmission_ids', 'previous_certificate_ids', 'signature'];
const BLOCK_KEYS = ['block_hash', 'previous_hash', 'header', 'authority', 'ratifications', 'solutions', 'aborted_solution_ids', 'transactions', 'aborted_transaction_ids'];

let dir: string;
let env: MintedCliEnv;
let updates: MainnetUpdate[];
let node: MainnetNodeProcess;
let limited: MainnetNodeProcess;

async function start(name: string, spec: MainnetNodeSpec): Promise<MainnetNodeProcess> {
  writeFileSync(join(dir, `${name}.json`), JSON.stringify(spec));
  return startMainnetNodeProcess(join(dir, `${name}.json`));
}

async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; headers: Headers }> {
  const r = await fetch(url, { headers });
  return { status: r.status, text: await r.text(), headers: r.headers };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mainnet-node-'));
  env = await startMintedCliEnv(dir, MRENCLAVE);
  updates = mainnetUpdates(env);
  node = await start('node', { latest: 3199, rps: 100_000, updates, jwt: 'node-jwt' });
  limited = await start('limited', { latest: 99, rps: 1, updates: [] });
}, 120_000);

afterAll(async () => {
  await node?.stop();
  await limited?.stop();
  await env?.pccs.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the mainnet-shaped node', () => {
  it('serves 50 blocks of mainnet size, pretty-printed, with an authority of round certificates as snarkVM serializes it', async () => {
    const r = await get(`${node.origin}/v2/mainnet/blocks?start=100&end=150`);
    expect(r.status).toBe(200);
    const blocks = JSON.parse(r.text) as any[];
    expect(r.text).toBe(JSON.stringify(blocks, null, 2));
    expect(blocks.map((b) => b.header.metadata.height)).toEqual(Array.from({ length: 50 }, (_, i) => 100 + i));
    const perBlock = Buffer.byteLength(r.text) / 50;
    expect(perBlock).toBeGreaterThan(320_000);
    expect(perBlock).toBeLessThan(370_000);
    // The authority's share: all but the rest of each block (as printed where it stands, 2 levels deep).
    const rest = blocks.reduce((n, b) => n + JSON.stringify({ ...b, authority: null }, null, 2).replace(/\n/g, '\n    ').length, 0);
    const share = 1 - rest / r.text.length;
    expect(share).toBeGreaterThan(0.97);
    expect(share).toBeLessThan(0.995);
    for (const b of blocks) {
      expect(Object.keys(b)).toEqual(BLOCK_KEYS);
      expect(b.header.metadata.network).toBe(0);
      expect(b.authority.type).toBe('quorum');
      const rounds = Object.keys(b.authority.subdag.subdag);
      expect(rounds.length).toBeGreaterThanOrEqual(2);
      for (const certs of Object.values(b.authority.subdag.subdag) as any[][]) {
        for (const c of certs) {
          expect(Object.keys(c)).toEqual(['batch_header', 'signatures']);
          expect(Object.keys(c.batch_header)).toEqual(BATCH_HEADER_KEYS);
          expect(c.batch_header.signature).toMatch(/^sign1[a-z0-9]{211}$/);
          expect(c.signatures.length).toBeGreaterThanOrEqual(19);
          expect(c.batch_header.previous_certificate_ids.length).toBeGreaterThanOrEqual(21);
          expect(c.batch_header.author).toMatch(/^aleo1[a-z0-9]{58}$/);
        }
      }
    }
    expect(new Set(blocks.map((b) => b.block_hash)).size).toBe(50);
    expect(blocks[1].previous_hash).toBe(blocks[0].block_hash);
  });

  it("serves /blocks/transactions as one array of confirmed transactions per block, the same as the blocks', at mainnet's density, with an update every 100 blocks of every era", async () => {
    const whole = JSON.parse((await get(`${node.origin}/v2/mainnet/blocks?start=40&end=90`)).text) as any[];
    const ids = new Set<string>();
    let bytes = 0;
    const programs = new Set<string>();
    for (let s = 0; s < 3200; s += 160) {
      const r = await get(`${node.origin}/v2/mainnet/blocks/transactions?start=${s}&end=${s + 160}`);
      expect(r.status).toBe(200);
      const perBlock = JSON.parse(r.text) as any[][];
      expect(r.text).toBe(JSON.stringify(perBlock, null, 2));
      expect(r.text).not.toContain('authority');
      expect(perBlock).toHaveLength(160);
      if (s === 0) expect(perBlock.slice(40, 90)).toEqual(whole.map((b) => b.transactions));
      perBlock.forEach((txs, i) => {
        bytes += JSON.stringify(txs, null, 2).length;
        const h = s + i;
        const oracle = txs.flatMap((tx) => tx.transaction.execution?.transitions ?? []).filter((x: any) => x.program !== 'credits.aleo');
        if (h % 100 === 50) {
          expect(oracle).toHaveLength(1);
          ids.add(txs[0].transaction.id).add(oracle[0].id);
          programs.add(`${oracle[0].program}/${oracle[0].function}`);
        } else expect(oracle).toHaveLength(0);
      });
    }
    expect(bytes / 3200).toBeGreaterThan(1200);
    expect(bytes / 3200).toBeLessThan(1800);
    expect(programs.size).toBeGreaterThanOrEqual(4);
    // Every placement has ids of its own (32 updates: a transaction id and a transition id each).
    expect(ids.size).toBe(64);
  });

  it('serves every prefix, with snarkOS range errors kept on v2 and flattened to a 500 on v1', async () => {
    for (const prefix of ['/mainnet', '/v1/mainnet', '/v2/mainnet']) {
      const latest = await get(`${node.origin}${prefix}/block/height/latest`);
      expect([latest.status, latest.text]).toEqual([200, '3199']);
      expect(JSON.parse((await get(`${node.origin}${prefix}/blocks?start=3199&end=3200`)).text)[0].header.metadata.height).toBe(3199);
    }
    const over = await get(`${node.origin}/v2/mainnet/blocks/transactions?start=0&end=161`);
    expect(over.status).toBe(400);
    expect(JSON.parse(over.text)).toEqual({ message: "Cannot request more than 160 blocks' transactions per call (requested 161)", error_type: 'bad_request' });
    const overV1 = await get(`${node.origin}/v1/mainnet/blocks?start=0&end=51`);
    expect([overV1.status, overV1.text]).toEqual([500, 'Cannot request more than 50 blocks per call (requested 51)']);
    expect((await get(`${node.origin}/v2/mainnet/blocks?start=3190&end=3201`)).status).toBe(404);
    expect((await get(`${node.origin}/mainnet/blocks?start=3190&end=3201`)).status).toBe(500);
    const unknown = await get(`${node.origin}/v2/mainnet/no-such-route`);
    expect([unknown.status, unknown.text]).toEqual([404, '']);
  });

  it("answers the mapping routes from the updates it placed (the listing behind the node's JWT)", async () => {
    const base = `${node.origin}/v2/mainnet/program/official_oracle.aleo/mapping/sgx_attested_data`;
    expect((await get(`${base}?all=true`)).status).toBe(401);
    const auth = { authorization: 'Bearer node-jwt' };
    expect((await get(base, auth)).status).toBe(400);
    const listed = await get(`${base}?all=true&metadata=true`, auth);
    expect(listed.status).toBe(200);
    const { data, height } = JSON.parse(listed.text) as { data: [string, string][]; height: number };
    expect(height).toBe(3199);
    expect(data.length).toBeGreaterThan(0);
    const [key, value] = data[0]!;
    expect(key).toMatch(/^\d+u128$/);
    expect(value).toMatch(/^\{\n {2}data: \d+u128,\n {2}attestation_timestamp: \d+u128\n\}$/);
    expect(JSON.parse((await get(`${base}/${key}`)).text)).toBe(value);
    expect(JSON.parse((await get(`${base}/1u128`)).text)).toBeNull();
    // A program no update calls or stores into is not deployed on this chain: snarkOS's 500 on every prefix.
    const absent = await get(`${node.origin}/mainnet/program/vlink_oracle_v2.aleo/mapping/sgx_attested_data?all=true&metadata=true`, auth);
    expect([absent.status, absent.text]).toEqual([500, "Program 'vlink_oracle_v2.aleo' does not exist"]);
    expect((await get(`${node.origin}/v2/mainnet/program/vlink_oracle_v2.aleo/mapping/sgx_attested_data/1u128`)).status).toBe(500);
  });

  it("serves /block/{h}/header, and its block times hold each update's attestation time (an update's block from its attestation to well within the hour after), never decreasing", async () => {
    const header = async (prefix: string, h: number) => {
      const r = await get(`${node.origin}${prefix}/block/${h}/header`);
      expect(r.status).toBe(200);
      return JSON.parse(r.text) as { metadata: { height: number; timestamp: number } };
    };
    // The header is the block's, on every prefix; past the tip there is none.
    const blocks = JSON.parse((await get(`${node.origin}/v2/mainnet/blocks?start=1140&end=1160`)).text) as any[];
    for (const b of blocks) expect(await header('/v2/mainnet', b.header.metadata.height)).toEqual(b.header);
    for (const prefix of ['/mainnet', '/v1/mainnet']) expect((await header(prefix, 3199)).metadata.height).toBe(3199);
    expect((await get(`${node.origin}/v2/mainnet/block/3200/header`)).status).toBe(404);
    expect((await get(`${node.origin}/mainnet/block/3200/header`)).status).toBe(500);

    // Every update's first block (12 updates, one every 100 blocks): at or after the latest time its requests attest, within 20 minutes.
    const perBlock = JSON.parse((await get(`${node.origin}/v2/mainnet/blocks/transactions?start=0&end=160`)).text) as any[][];
    const more = JSON.parse((await get(`${node.origin}/v2/mainnet/blocks/transactions?start=160&end=320`)).text) as any[][];
    const txsAt = async (h: number): Promise<any[]> => {
      if (h < 320) return [...perBlock, ...more][h]!;
      return (JSON.parse((await get(`${node.origin}/v2/mainnet/blocks/transactions?start=${h}&end=${h + 1}`)).text) as any[][])[0]!;
    };
    const attested = new Set<string>();
    for (let h = 50; h < updates.length * 100; h += 100) {
      const transition = (await txsAt(h)).flatMap((tx) => tx.transaction.execution?.transitions ?? []).find((x: any) => x.program !== 'credits.aleo');
      const kind = updateKindOf(transition.program, transition.function)!;
      const writes = updateWrites(PROGRAMS.program(transition.program)?.attestedData, kind, transition.function, transition.inputs[0].value);
      expect(writes.length).toBeGreaterThan(0);
      const time = Math.max(...writes.map((w) => Number(w.attestationTimestamp)));
      attested.add(String(time));
      const t = (await header('/v2/mainnet', h)).metadata.timestamp;
      expect(t, `block ${h}`).toBeGreaterThanOrEqual(time);
      expect(t - time, `block ${h}`).toBeLessThan(1200);
    }
    // The real eras' times are among them (2024 to 2026), not only the minted updates'.
    expect(attested.size).toBeGreaterThanOrEqual(8);
    let last = 0;
    for (let h = 0; h < 3200; h += 25) {
      const t = (await header('/v2/mainnet', h)).metadata.timestamp;
      expect(t, `block ${h}`).toBeGreaterThanOrEqual(last);
      last = t;
    }
  });

  it("rate-limits per IP and prefix as snarkOS does: 429 with retry-after on v2, a 500 '… (HTTP 429)' on v1", async () => {
    // One request a second, burst one: of four sent at once, the first passes and at least one is refused.
    const burst = async (prefix: string) => Promise.all(Array.from({ length: 4 }, () => get(`${limited.origin}${prefix}/block/height/latest`)));
    const v2 = await burst('/v2/mainnet');
    expect(v2.some((r) => r.status === 200)).toBe(true);
    const refused = v2.filter((r) => r.status !== 200);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.status).toBe(429);
      expect(r.text).toMatch(/^Too Many Requests! Wait for \d+s$/);
      expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
    }
    for (const prefix of ['/v1/mainnet', '/mainnet']) {
      const v1 = await burst(prefix);
      expect(v1.some((r) => r.status === 200)).toBe(true);
      const refusedV1 = v1.filter((r) => r.status !== 200);
      expect(refusedV1.length).toBeGreaterThan(0);
      for (const r of refusedV1) {
        expect(r.status).toBe(500);
        expect(r.text).toMatch(/^Too Many Requests! Wait for \d+s \(HTTP 429\)$/);
        expect(r.headers.get('retry-after')).toBeNull();
      }
    }
  });
});
