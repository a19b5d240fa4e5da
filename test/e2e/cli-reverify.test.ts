/**
 * The oracle-verifier CLI as a real process against real HTTP servers: a ledger-node simulator
 * serving blocks built from the real ledger vectors (with 429s, 500s, rate-limit texts and slow
 * answers injected), and a PCCS-compatible server serving the recorded 2026 Intel collateral.
 * Covers the block scan, measurement-in-force replay, shards + merge, the worker pool, crash
 * (SIGKILL) + resume, the JSONL and tx-dir sources, offline collateral and exit codes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startLedgerNode, type LedgerNode } from '../support/ledger-node.js';
import { LedgerChain, t } from '../support/ledger-chain.js';
import { recordedBundle2026, startPccsServer, type PccsServer } from '../support/pccs-server.js';
import { readVectorJson, VECTORS } from '../support/paths.js';
import { formatPcrStruct, formatUniqueId } from '../../src/aleo/ids.js';
import { reverifyCommand } from '../../src/cli/reverify.js';

/** reverify in this process (cheaper than a process for the source and exit-code cases). */
async function inProcess(args: string[], out: string): Promise<{ code: number; stderr: string; records: any[] }> {
  let stderr = '';
  const code = await reverifyCommand([...args, '--out', out, '--progress-interval', '0'], { stderr: (s) => void (stderr += s), tty: false });
  return { code, stderr, records: lines(readFileSync(out, 'utf8')) };
}

const CLI = resolve(process.cwd(), 'src/cli/main.ts');
const PROGRAM = 'official_oracle.aleo';
const examples = readVectorJson<any>('aleo/e2e/readme-decodeReport-examples.json');
const manifest = readVectorJson<any>('nitro/manifest.json');
const doc = manifest.vectors.find((v: any) => v.file === 'oracle-nitro-report.hex');
const DOC_PCRS: string[] = [doc.pcr0, doc.pcr1, doc.pcr2];
const MRENCLAVE = '58e26caa30264d74ee496f370cdf0433a82808f13fb26b885d3f1e54dc7a34df';
const OTHER_PCRS = [doc.pcr0.replace(/^../, '00'), doc.pcr1, doc.pcr2];
const AT = '2026-09-23T00:00:00Z';
const hexb = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));
const sgx = examples.sgx.request;
const nitro = examples.nitro.request;

/** userData with one u128 changed (c0.f2, the attested value): the binding must fail. */
function tamper(text: string): string {
  return text.replace(/(c0:\s*\{[^}]*?\bf2:\s*)(\d+)u128/, (_m, a: string, v: string) => `${a}${BigInt(v) + 1n}u128`);
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], opts: { timeoutMs?: number; onStart?: (c: ChildProcess) => void } = {}): Promise<Run> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { env: { ...process.env, NODE_NO_WARNINGS: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rej(new Error(`CLI did not exit within ${opts.timeoutMs ?? 150_000} ms\n${stderr}`));
    }, opts.timeoutMs ?? 150_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      res({ code, stdout, stderr });
    });
    opts.onStart?.(child);
  });
}

const lines = (text: string) => text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));

let dir: string;
let node: LedgerNode;
let pccs: PccsServer;
let chain: LedgerChain;
let config: string;
let ids: Record<string, { transactionId: string; transitionIds: string[] }>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cli-e2e-'));
  pccs = await startPccsServer(recordedBundle2026(VECTORS));
  node = await startLedgerNode();
  config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({ uniqueIdTarget: MRENCLAVE, pcrValuesTarget: DOC_PCRS, acceptedTcbStatuses: ['UpToDate', 'SWHardeningNeeded', 'OutOfDate'], pccsUrl: pccs.url }),
  );
  // Heights 1000..1130: three batches of 50 (1000-1049, 1050-1099, 1100-1130).
  chain = new LedgerChain(1000, 1130);
  ids = {
    ownerA: chain.add(1003, [t.setUniqueId(PROGRAM, formatUniqueId(hexb(MRENCLAVE))), t.setPcrValues(PROGRAM, formatPcrStruct(OTHER_PCRS.map(hexb)))]),
    sgx: chain.add(1010, [t.setDataSgx(PROGRAM, sgx.userData, sgx.report)]),
    nitroOld: chain.add(1020, [t.setDataNitro(PROGRAM, nitro.userData, nitro.report)]),
    skip: chain.add(1030, [t.transfer(), t.other('other_oracle.aleo', 'set_data_sgx', [sgx.userData, sgx.report]), t.setKey(PROGRAM)]),
    rejected: chain.add(1060, [t.setDataSgx(PROGRAM, sgx.userData, sgx.report)], { rejected: true }),
    viaInterface: chain.add(1070, [t.other('veru_oracle_interface_v5.aleo', 'set_single_data_sgx', ['1u8']), t.setDataNitro(PROGRAM, nitro.userData, nitro.report)]),
    tampered: chain.add(1080, [t.setDataSgx(PROGRAM, tamper(sgx.userData), sgx.report)]),
    ownerB: chain.add(1105, [t.setPcrValues(PROGRAM, formatPcrStruct(DOC_PCRS.map(hexb)))]),
    nitroNew: chain.add(1110, [t.setDataNitro(PROGRAM, nitro.userData, nitro.report)]),
  };
  chain.install(node);
});

afterAll(async () => {
  await node?.close();
  await pccs?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// The per-request limit is generous unless a test is about timeouts: on a loaded machine a short
// limit fires on normal answers and the retried requests would change what the tests count.
const scanArgs = (extra: string[], range = ['--from', '1000', '--to', '1131'], retries = '4', timeoutMs = '30000') => [
  'reverify', '--node', node.url, '--program', 'official_oracle', ...range, '--config', config, '--at', AT,
  '--retries', retries, '--backoff-ms', '20', '--timeout-ms', timeoutMs, ...extra,
];

describe('reverify over a ledger node', () => {
  let unsharded: string;

  it("waits out snarkOS v1's rate limit (500, body ending \"(HTTP 429)\") without failing the scan, even with no retries", async () => {
    node.reset();
    node.script('/blocks', Array.from({ length: 6 }, () => reply.v1RateLimit(0)));
    const out = join(dir, 'scan-v1-limit.jsonl');
    const r = await cli(scanArgs(['--workers', '0', '--out', out, '--progress-interval', '0'], undefined, '0'));
    expect(r.code, r.stderr).toBe(1); // the tampered update is invalid, nothing else failed
    const updates = lines(readFileSync(out, 'utf8')).filter((x) => x.kind !== 'measurement');
    expect(updates.map((x) => x.blockHeight)).toEqual([1010, 1020, 1030, 1070, 1080, 1110]);
    expect(updates.filter((x) => x.errorCode !== undefined && x.errorCode !== 'USERDATA_HASH_MISMATCH')).toEqual([]);
    expect(node.requestsTo('/blocks').length).toBeGreaterThan(6);
  });

  it('scans blocks through 429s, 500s, rate-limit texts and slow answers, verifying every oracle update', async () => {
    node.reset();
    // The fourth answer would come a minute late, far beyond the 1 s limit of this run: it is
    // retried. (On a loaded machine other requests may hit the limit and be retried too; nothing
    // below depends on how many, and 8 retries leave room for them within the overall deadline.)
    node.script('/blocks', [reply.tooManyRequests('0'), reply.serverError(), reply.rateLimitText(), reply.slow(60_000), reply.slow(100)]);
    const out = join(dir, 'scan.jsonl');
    const started = Date.now();
    const r = await cli(scanArgs(['--workers', '0', '--rps', '25', '--concurrency', '2', '--out', out, '--progress-interval', '0'], undefined, '8', '1000'));
    expect(r.code, r.stderr).toBe(1); // the tampered update is invalid
    unsharded = readFileSync(out, 'utf8');
    const recs = lines(unsharded);
    const updates = recs.filter((x) => x.kind !== 'measurement');
    expect(updates.map((x) => [x.blockHeight, x.function, x.transitionId])).toEqual([
      [1010, 'set_data_sgx', ids.sgx!.transitionIds[0]],
      [1020, 'set_data_nitro', ids.nitroOld!.transitionIds[0]],
      [1030, 'set_data_sgx', ids.skip!.transitionIds[1]],
      [1070, 'set_data_nitro', ids.viaInterface!.transitionIds[1]],
      [1080, 'set_data_sgx', ids.tampered!.transitionIds[0]],
      [1110, 'set_data_nitro', ids.nitroNew!.transitionIds[0]],
    ]);
    const [s, n1, unknown, n2, bad, n3] = updates;
    // Never silent: another program's transition of update shape is verified, and marked unrecognized.
    expect(unknown).toMatchObject({ program: 'other_oracle.aleo', unrecognized: true, kind: 'typeA', reportValid: true });
    expect(s).toMatchObject({ transactionId: ids.sgx!.transactionId, kind: 'typeA', reportValid: true, tcbStatus: 'OutOfDate', measurements: { uniqueId: MRENCLAVE } });
    expect(s.measurementInForce).toEqual({ matches: true, sourceHeight: 1003 });
    expect(s.decodedData).toEqual(examples.sgx.response.decodedData);
    expect(n1).toMatchObject({ kind: 'typeB', reportValid: true, measurements: { pcrs: DOC_PCRS }, measurementInForce: { matches: false, sourceHeight: 1003 } });
    expect(n1.decodedData).toEqual(examples.nitro.response.decodedData);
    expect(n2.measurementInForce).toEqual({ matches: false, sourceHeight: 1003 });
    expect(bad).toMatchObject({ kind: 'typeA', reportValid: false, errorCode: 'USERDATA_HASH_MISMATCH' });
    expect(n3).toMatchObject({ reportValid: true, measurementInForce: { matches: true, sourceHeight: 1105 } });
    expect(recs.filter((x) => x.kind === 'measurement').map((x) => [x.blockHeight, x.function])).toEqual([
      [1003, 'set_unique_id'],
      [1003, 'set_pcr_values'],
      [1105, 'set_pcr_values'],
    ]);
    // The summary table on stderr: kind × outcome × code.
    expect(r.stderr).toMatch(/typeA\s+invalid\s+USERDATA_HASH_MISMATCH\s+1/);
    expect(r.stderr).toMatch(/typeB\s+valid\s+-\s+3/);
    expect(r.stderr).toMatch(/updates 6: valid 5, invalid 1, unverifiable 0; from unrecognized transitions 1/);
    // Calls: ≤ 50 blocks each, end exclusive; the rate limit holds (25 rps → 40 ms per call, retries
    // included). Arrivals may bunch (a call can arrive late, never early), so the bound is taken
    // from the start of the run: the last call cannot arrive before (n − 1) × 40 ms.
    const calls = node.requestsTo('/blocks');
    expect(calls.length).toBeGreaterThanOrEqual(3 + 4);
    for (const c of calls) {
      const q = new URL(c.path, 'http://x').searchParams;
      expect(Number(q.get('end')) - Number(q.get('start'))).toBeLessThanOrEqual(50);
    }
    const last = Math.max(...calls.map((c) => c.at));
    expect(last - started).toBeGreaterThanOrEqual((calls.length - 1) * 40);
    // The PCCS was asked for the quote's collateral.
    expect(pccs.requests.some((q) => q.includes('tcb?fmspc=00906ed50000'))).toBe(true);
  });

  it('two shards (one through the worker pool) merged equal the unsharded run', async () => {
    node.reset();
    const s0 = join(dir, 'shard0.jsonl');
    const s1 = join(dir, 'shard1.jsonl');
    const [r0, r1] = await Promise.all([
      cli(scanArgs(['--workers', '2', '--shard', '0/2', '--out', s0, '--progress-interval', '0'])),
      cli(scanArgs(['--workers', '0', '--shard', '1/2', '--out', s1, '--progress-interval', '0'])),
    ]);
    expect(r0.code, r0.stderr).toBe(0); // shard 0 has batches 1000-1049 and 1100-1130 (all valid)
    expect(r1.code, r1.stderr).toBe(1); // shard 1 has batch 1050-1099 (the tampered update)
    // Each shard asked for its own batches only (a retry would repeat a start, never add one).
    const starts = new Set(node.requestsTo('/blocks').map((c) => Number(new URL(c.path, 'http://x').searchParams.get('start'))));
    expect([...starts].sort()).toEqual([1000, 1050, 1100]);
    expect(lines(readFileSync(s0, 'utf8')).every((x) => x.measurementInForce === undefined)).toBe(true);
    const merged = join(dir, 'merged.jsonl');
    const m = await cli(['merge', merged, s1, s0, s1]); // order and duplicates do not matter
    expect(m.code, m.stderr).toBe(1);
    expect(readFileSync(merged, 'utf8')).toBe(unsharded);
    expect(m.stderr).toMatch(/updates 6: valid 5, invalid 1, unverifiable 0; from unrecognized transitions 1/);
  });

  it('exits 2 when the node keeps failing', async () => {
    node.reset();
    node.script('/blocks', Array.from({ length: 10 }, () => reply.serverError()));
    const r = await cli(scanArgs(['--workers', '0'], ['--from', '1000', '--to', '1010'], '2'));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/reverify stopped: .*status 500/);
  });
});

describe('a scan whose completeness was not checked says so (issue 48, item 8)', () => {
  it('ends with what its records cannot show, without --completeness', async () => {
    const r = await inProcess([...scanArgs(['--workers', '0']).slice(1)], join(dir, 'unchecked.jsonl'));
    expect(r.records.length).toBeGreaterThan(0);
    expect(r.stderr.trimEnd().split('\n').slice(-2)).toEqual([
      'completeness: not checked — --completeness was not given',
      "  the records hold what the node served: a write it left out of its answers is missing here without notice (--completeness, with the node's JWT in LEDGER_NODE_JWT, checks the node's answers against its mappings)",
    ]);
  });
});

describe('a checkpoint edited by hand (issue 48, item 7)', () => {
  it('is refused, naming the value, for a cursor or an output offset no run could have written', async () => {
    // A finished run of 1000..1131 in batches of 10, with its output and checkpoint.
    const out = join(dir, 'edited.jsonl');
    const ckpt = join(dir, 'edited.ckpt');
    const args = [...scanArgs(['--workers', '0', '--batch', '10', '--checkpoint', ckpt]).slice(1), '--progress-interval', '0'];
    const run = (extra: string[] = []) => {
      let stderr = '';
      return reverifyCommand([...args, '--out', out, ...extra], { stderr: (x) => void (stderr += x), tty: false }).then(
        (code) => ({ code, stderr }),
        (e: unknown) => ({ code: -1, stderr: '', error: e as Error & { code?: string } }),
      );
    };
    const first = await run();
    expect(first.code, String((first as { error?: Error }).error?.message ?? first.stderr)).toBe(1); // one tampered update
    const written = readFileSync(out, 'utf8');
    const saved = JSON.parse(readFileSync(ckpt, 'utf8'));
    expect(saved).toMatchObject({ done: true, cursor: 1131, outputOffset: Buffer.byteLength(written) });
    const firstLine = Buffer.byteLength(written.split('\n')[0]!) + 1;
    const edits: [Record<string, number>, RegExp][] = [
      [{ cursor: -1 }, /cursor -1 is not a whole number from 1000 to 1131/],
      [{ cursor: 1200 }, /cursor 1200 is not a whole number from 1000 to 1131/],
      [{ cursor: 1015 }, /cursor 1015 is not the start of a batch of 10 blocks from 1000/],
      [{ cursor: 1010.5 }, /cursor 1010.5 is not a whole number/],
      [{ outputOffset: -1 }, /outputOffset -1 is not a byte offset inside/],
      [{ outputOffset: saved.outputOffset + 1000 }, /is not a byte offset inside .* \(\d+ bytes\)/],
      [{ outputOffset: firstLine - 1 }, /is not at the end of a line/],
    ];
    for (const [edit, why] of edits) {
      writeFileSync(ckpt, JSON.stringify({ ...saved, ...edit, done: false }));
      const r = await run(['--resume']);
      expect(r.code, JSON.stringify(edit)).toBe(-1);
      expect((r as { error?: Error & { code?: string } }).error).toMatchObject({ code: 'CLI_CHECKPOINT_INVALID' });
      expect((r as { error?: Error }).error!.message).toMatch(why);
      // Nothing was written: the output is as the first run left it.
      expect(readFileSync(out, 'utf8')).toBe(written);
    }
    // A checkpoint as a run writes it, at a batch boundary and a line end, is resumed.
    writeFileSync(ckpt, JSON.stringify({ ...saved, cursor: 1000, nextHeight: 1000, outputOffset: 0, done: false }));
    const again = await run(['--resume']);
    expect(again.code).toBe(1);
    expect(readFileSync(out, 'utf8')).toBe(written);
  });
});

describe('crash and resume', () => {
  it('a SIGKILLed run resumed from its checkpoint accounts for every update exactly once', async () => {
    // 300 blocks, one update per block (every 7th tampered), 30 batches of 10 at 10 calls/s.
    const big = new LedgerChain(5000, 5299);
    const expected = new Map<string, boolean>();
    for (let h = 5000; h < 5300; h++) {
      const bad = h % 7 === 0;
      const { transitionIds } = big.add(h, [h % 2 ? t.setDataNitro(PROGRAM, bad ? tamper(nitro.userData) : nitro.userData, nitro.report) : t.transfer()]);
      if (h % 2) expected.set(transitionIds[0]!, !bad);
    }
    const bigNode = await startLedgerNode();
    big.install(bigNode);
    // The first run cannot get past 5200 before it is killed: those batches are held until then.
    const release = bigNode.hold((path, q) => path === '/blocks' && Number(q.get('start')) >= 5200);
    try {
      const out = join(dir, 'crash.jsonl');
      const ckpt = join(dir, 'crash.ckpt');
      const args = ['reverify', '--node', bigNode.url, '--program', PROGRAM, '--from', '5000', '--to', '5300', '--batch', '10', '--rps', '30', '--concurrency', '2',
        '--config', config, '--workers', '0', '--out', out, '--checkpoint', ckpt, '--progress-interval', '0'];
      let killedAt = -1;
      const first = await cli(args, {
        onStart: (child) => {
          const poll = setInterval(() => {
            if (!existsSync(ckpt)) return;
            try {
              const c = JSON.parse(readFileSync(ckpt, 'utf8'));
              if (c.nextHeight >= 5100) {
                clearInterval(poll);
                killedAt = c.nextHeight;
                child.kill('SIGKILL');
              }
            } catch {
              /* being renamed */
            }
          }, 20);
          child.on('exit', () => clearInterval(poll));
        },
      });
      expect(first.code).toBeNull(); // killed
      expect(killedAt).toBeGreaterThanOrEqual(5100);
      expect(killedAt).toBeLessThanOrEqual(5200);
      release();
      // Simulate a torn write after the checkpoint: garbage beyond the checkpointed offset.
      writeFileSync(out, '{"partial": tru', { flag: 'a' });
      const second = await cli([...args, '--resume']);
      expect(second.code, second.stderr).toBe(1);
      expect(second.stderr).toMatch(/resuming at height \d+/);
      const recs = lines(readFileSync(out, 'utf8'));
      const seen = new Map<string, number>();
      for (const r of recs) seen.set(r.transitionId, (seen.get(r.transitionId) ?? 0) + 1);
      expect(recs).toHaveLength(expected.size);
      for (const [id, valid] of expected) {
        expect(seen.get(id), id).toBe(1);
        const r = recs.find((x) => x.transitionId === id);
        expect(r.reportValid).toBe(valid);
        if (!valid) expect(r.errorCode).toBe('USERDATA_HASH_MISMATCH');
      }
      expect(recs.map((x) => x.blockHeight)).toEqual([...recs.map((x) => x.blockHeight)].sort((a, b) => a - b));
      expect(JSON.parse(readFileSync(ckpt, 'utf8'))).toMatchObject({ done: true, nextHeight: 5300 });
      const valid = [...expected.values()].filter(Boolean).length;
      expect(second.stderr).toContain(`updates ${expected.size}: valid ${valid}, invalid ${expected.size - valid}`);
    } finally {
      await bigNode.close();
    }
  });
});

describe('offline sources', () => {
  it('collateral fetch writes a directory that verifies typeA offline; JSONL of valid updates exits 0', async () => {
    const cdir = join(dir, 'collateral');
    const f = await cli(['collateral', 'fetch', '--pccs', pccs.url, '--fmspc', '00906ED50000', '--out', cdir]);
    expect(f.code, f.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(cdir, 'manifest.json'), 'utf8'))).toMatchObject({ fmspcs: ['00906ed50000'], pckCrlCas: ['processor'] });
    const served = recordedBundle2026(VECTORS);
    expect(readFileSync(join(cdir, 'tcb/00906ed50000.json'), 'utf8')).toBe(served.tcbInfo['00906ed50000']!.body);
    expect(readFileSync(join(cdir, 'rootcacrl.der')).toString('hex')).toBe(served.rootCaCrlHex.toLowerCase());

    const jsonl = join(dir, 'in.jsonl');
    writeFileSync(jsonl, [JSON.stringify({ ...sgx, id: 'sgx-1' }), '', JSON.stringify({ ...nitro, id: 'nitro-1' }), JSON.stringify(nitro)].join('\n') + '\n');
    const before = pccs.requests.length;
    const r = await cli(['reverify', '--jsonl', jsonl, '--config', config, '--at', AT, '--collateral-dir', cdir, '--pccs', 'http://127.0.0.1:9/none/', '--workers', '0']);
    expect(r.code, r.stderr).toBe(0);
    expect(pccs.requests.length).toBe(before); // offline
    const recs = lines(r.stdout);
    expect(recs.map((x) => [x.id, x.kind, x.reportValid])).toEqual([
      ['sgx-1', 'typeA', true],
      ['nitro-1', 'typeB', true],
      [undefined, 'typeB', true],
    ]);
    expect(recs[0].tcbStatus).toBe('OutOfDate');
    // With a collateral archive, what the directory gave is kept in it (issue 49: every document given is archived).
    const archive = join(dir, 'archive-from-dir');
    const a = await cli(['reverify', '--jsonl', jsonl, '--config', config, '--at', AT, '--collateral-dir', cdir, '--archive', archive, '--offline', '--workers', '0']);
    expect(a.code, a.stderr).toBe(0);
    expect(readdirSync(archive).sort()).toEqual(['archive.json', 'pckCrl', 'qeIdentity', 'rootCaCrl', 'tcbInfo']);
    expect(lines(a.stdout)).toEqual(recs);
  });

  it('exits 1 on an invalid JSONL line and 2 when typeA collateral is unavailable', async () => {
    const jsonl = join(dir, 'bad.jsonl');
    writeFileSync(jsonl, `${JSON.stringify(nitro)}\n{"userData": 1}\n`);
    const r1 = await inProcess(['--jsonl', jsonl, '--config', config, '--workers', '0'], join(dir, 'bad.out'));
    expect(r1.code).toBe(1);
    expect(r1.records[1]).toMatchObject({ reportValid: false, outcome: 'invalid', errorCode: 'CLI_BAD_INPUT' });
    expect(r1.records[0]).toMatchObject({ reportValid: true, outcome: 'valid' });
    const sgxOnly = join(dir, 'sgx.jsonl');
    writeFileSync(sgxOnly, `${JSON.stringify(sgx)}\n`);
    const r2 = await inProcess(['--jsonl', sgxOnly, '--config', config, '--at', AT, '--pccs', 'http://127.0.0.1:9/sgx/certification/v4/', '--workers', '0'], join(dir, 'sgx.out'));
    expect(r2.code).toBe(2);
    expect(r2.records[0]).toMatchObject({ kind: 'typeA', reportValid: false, outcome: 'unverifiable', errorCode: 'PCCS_UNAVAILABLE' });
    expect(r2.stderr).toMatch(/typeA\s+unverifiable\s+PCCS_UNAVAILABLE\s+1/);
    expect(r2.stderr).toMatch(/valid 0, invalid 0, unverifiable 1/);
  });

  it('reads saved transactions (--tx-dir), bare and with metadata', async () => {
    const tdir = join(dir, 'txs');
    mkdirSync(tdir);
    const bare = await fetch(`${node.url}/transaction/${ids.nitroNew!.transactionId}`).then((x) => x.json());
    const meta = await fetch(`${node.url}/transaction/${ids.viaInterface!.transactionId}?metadata=true`).then((x) => x.json());
    writeFileSync(join(tdir, 'a.json'), JSON.stringify(bare));
    writeFileSync(join(tdir, 'b.json'), JSON.stringify(meta));
    const r = await inProcess(['--tx-dir', tdir, '--program', PROGRAM, '--config', config, '--workers', '0'], join(dir, 'txs.out'));
    expect(r.code, r.stderr).toBe(0);
    const recs = r.records;
    expect(recs.map((x) => [x.transitionId, x.blockHeight, x.reportValid])).toEqual([
      [ids.nitroNew!.transitionIds[0], undefined, true],
      [ids.viaInterface!.transitionIds[1], 1070, true],
    ]);
  });
});
