/**
 * `verify` gives the POST /decodeReport body of the real server for the real cases; an
 * interrupted in-process `reverify` (stop request) resumes exactly; the collateral directory
 * reader refuses what it does not hold.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { verifyCommand } from '../../src/cli/verify.js';
import { createCliVerifier } from '../../src/cli/context.js';
import { runReverify } from '../../src/cli/reverify.js';
import { jsonlSource, txDirSource } from '../../src/cli/sources.js';
import { LedgerChain, t } from '../support/ledger-chain.js';
import { DirCollateralSource } from '../../src/collateral/collateralDir.js';
import { parseQuote, cutTypeAReport } from '../../src/attestation/typeA/quote.js';
import { parseChunkedStruct, REPORT_CHUNKS } from '../../src/aleo/struct.js';
import { parsePemChain } from '../../src/attestation/x509/certificate.js';
import { postJson, startServer, type RunningServer } from '../support/server.js';
import { recordedBundle2026, startPccsServer, type PccsServer } from '../support/pccs-server.js';
import { readVectorJson, vectorPath, VECTORS } from '../support/paths.js';

const examples = readVectorJson<any>('aleo/e2e/readme-decodeReport-examples.json');
const doc = readVectorJson<any>('nitro/manifest.json').vectors.find((v: any) => v.file === 'oracle-nitro-report.hex');
const MRENCLAVE = '58e26caa30264d74ee496f370cdf0433a82808f13fb26b885d3f1e54dc7a34df';
const raw = { uniqueIdTarget: MRENCLAVE, pcrValuesTarget: [doc.pcr0, doc.pcr1, doc.pcr2] };

let dir: string;
let pccs: PccsServer;
let server: RunningServer;
let config: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cli-verify-'));
  pccs = await startPccsServer(recordedBundle2026(VECTORS));
  server = await startServer({ ...raw, pccsUrl: pccs.url, verificationTime: '2026-09-23T00:00:00Z' });
  config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ ...raw, pccsUrl: pccs.url }));
  for (const k of ['sgx', 'nitro']) {
    writeFileSync(join(dir, `${k}.ud`), examples[k].request.userData);
    writeFileSync(join(dir, `${k}.rep`), JSON.stringify(examples[k].request.report)); // a JSON string is accepted too
  }
});
afterAll(async () => {
  await server?.close();
  await pccs?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function verify(args: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const code = await verifyCommand(args, { stdout: (s) => void (stdout += s), stderr: () => {} });
  return { code, stdout };
}

describe('verify', () => {
  for (const k of ['sgx', 'nitro'] as const) {
    it(`--json prints the POST /decodeReport body (${k})`, async () => {
      const r = await verify(['--user-data', join(dir, `${k}.ud`), '--report', join(dir, `${k}.rep`), '--config', config, '--at', '2026-09-23T00:00:00Z', '--json']);
      const http = await postJson(`${server.url}/decodeReport`, examples[k].request);
      expect(JSON.parse(r.stdout)).toEqual(http.body);
      // sgx: TCB OutOfDate is not accepted by default → invalid (exit 1); nitro valid.
      expect(r.code).toBe(k === 'sgx' ? 1 : 0);
      if (k === 'sgx') expect(http.body.errorCode).toBe('TYPEA_TCB_STATUS_REJECTED');
    });
  }
  it('prints a readable summary without --json', async () => {
    const r = await verify(['--user-data', join(dir, 'sgx.ud'), '--report', join(dir, 'sgx.rep'), '--config', config, '--at', '2026-09-23T00:00:00Z']);
    expect(r.stdout).toMatch(/report valid:\s+NO/);
    expect(r.stdout).toMatch(/^outcome:\s+invalid$/m);
    expect(r.stdout).toMatch(/TYPEA_TCB_STATUS_REJECTED/);
    expect(r.stdout).toContain(`unique id:     ${MRENCLAVE}`);
    expect(r.stdout).toMatch(/TCB status:\s+OutOfDate \(INTEL-SA-/);
  });

  it('with the PCCS unreachable: outcome unverifiable, exit 2 (not 1: nothing was found wrong with the report)', async () => {
    const args = ['--user-data', join(dir, 'sgx.ud'), '--report', join(dir, 'sgx.rep'), '--config', config, '--at', '2026-09-23T00:00:00Z', '--pccs', 'http://127.0.0.1:9/sgx/certification/v4/'];
    const readable = await verify(args);
    expect(readable.code).toBe(2);
    expect(readable.stdout).toMatch(/^outcome:\s+unverifiable \(could not verify: /m);
    expect(readable.stdout).toMatch(/^failure:\s+PCCS_UNAVAILABLE: /m);
    const json = await verify([...args, '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ reportValid: false, outcome: 'unverifiable', errorCode: 'PCCS_UNAVAILABLE' });
  });
});

describe('verify: input that is not a pair to judge (usage or input error, exit 2) vs a report that fails a check (exit 1)', () => {
  const opts = () => ['--config', config, '--at', '2026-09-23T00:00:00Z'];
  for (const k of ['sgx', 'nitro'] as const) {
    it(`the two files swapped (${k}): a usage error that says so, before any verification`, async () => {
      await expect(verify(['--user-data', join(dir, `${k}.rep`), '--report', join(dir, `${k}.ud`), ...opts()])).rejects.toMatchObject({
        code: 'CLI_USAGE',
        message: expect.stringMatching(new RegExp(`files look swapped: --report \\S+${k}\\.ud holds a userData struct \\(8 chunks\\) and --user-data \\S+${k}\\.rep a type[AB] report`)),
      });
    });
  }
  it('a garbage report is an input error naming the file and the parse failure, not an invalid verdict', async () => {
    const garbage = join(dir, 'garbage.rep');
    writeFileSync(garbage, 'this is not a struct\n');
    await expect(verify(['--user-data', join(dir, 'sgx.ud'), '--report', garbage, ...opts(), '--json'])).rejects.toMatchObject({
      code: 'CLI_BAD_INPUT',
      message: expect.stringMatching(/--report \S+garbage\.rep is not a report struct .*STRUCT_SYNTAX/),
    });
    const garbageUd = join(dir, 'garbage.ud');
    writeFileSync(garbageUd, '{ c0: { f0: 1u64 } }');
    await expect(verify(['--user-data', garbageUd, '--report', join(dir, 'sgx.rep'), ...opts()])).rejects.toMatchObject({
      code: 'CLI_BAD_INPUT',
      message: expect.stringMatching(/--user-data \S+garbage\.ud is not a userData struct/),
    });
  });
  it('runCli exits 2 on a swapped pair and on a garbage report, with the one line on stderr', async () => {
    const { runCli } = await import('../../src/cli/main.js');
    let err = '';
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((err += String(s)), true));
    try {
      expect(await runCli(['verify', '--user-data', join(dir, 'nitro.rep'), '--report', join(dir, 'nitro.ud'), ...opts()])).toBe(2);
      expect(err).toMatch(/^oracle-verifier: CLI_USAGE: verify: the files look swapped/);
    } finally {
      spy.mockRestore();
    }
  });
  it('a missing file: "no such file: PATH", not a bare ENOENT', async () => {
    const absent = join(dir, 'absent.rep');
    await expect(verify(['--user-data', join(dir, 'sgx.ud'), '--report', absent, ...opts()])).rejects.toMatchObject({ code: 'CLI_BAD_INPUT', message: `--report: no such file: ${absent}` });
  });
  it('a well-formed report with a changed field stays a verdict: invalid, exit 1', async () => {
    const forged = join(dir, 'forged.rep');
    const text = examples.nitro.request.report as string;
    const changed = text.replace(/(c3: \{\s*f0: )\d+u128/, '$11u128');
    expect(changed).not.toBe(text);
    writeFileSync(forged, changed);
    const r = await verify(['--user-data', join(dir, 'nitro.ud'), '--report', forged, ...opts()]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^outcome:\s+invalid$/m);
  });
});

describe('CLI metrics', () => {
  it('counts each CLI verification in verifier_verifications_total (same composition root as the server)', async () => {
    const verifier = createCliVerifier({ configPath: config, workers: 0 });
    try {
      expect(await verifier.metrics.registry.getSingleMetricAsString('verifier_verifications_total')).not.toMatch(/kind="typeB"/);
      const out = await verifier.verify(examples.nitro.request.userData, examples.nitro.request.report);
      expect(out.reportValid).toBe(true);
      await verifier.verify(examples.nitro.request.userData, examples.nitro.request.report);
      expect(await verifier.metrics.registry.getSingleMetricAsString('verifier_verifications_total')).toMatch(/kind="typeB",outcome="valid"} 2/);
    } finally {
      await verifier.close();
    }
  });
});

describe('reverify in process: stop and resume', () => {
  it('a stop request ends after a durable batch; --resume completes without loss or repeat', async () => {
    const jsonl = join(dir, 'many.jsonl');
    const n = 130;
    writeFileSync(jsonl, Array.from({ length: n }, (_, i) => JSON.stringify({ ...examples.nitro.request, id: `n${i}` })).join('\n') + '\n');
    const out = join(dir, 'many.out');
    const ckpt = join(dir, 'many.ckpt');
    const verifier = createCliVerifier({ configPath: config, workers: 0 });
    let batches = 0;
    let err = '';
    const base = { source: jsonlSource(jsonl), verifier, maxInFlight: 4, annotateInForce: true, outFile: out, checkpointFile: ckpt, progressIntervalMs: 0 };
    const first = await runReverify({ ...base, resume: false, io: { stderr: (s) => void (err += s), tty: false, stopRequested: () => ++batches > 1 } });
    expect(first).toBe(2);
    const c = JSON.parse(readFileSync(ckpt, 'utf8'));
    expect(c).toMatchObject({ cursor: 50, done: false });
    expect(readFileSync(out).length).toBe(c.outputOffset);
    await expect(runReverify({ ...base, resume: false, io: { stderr: () => {}, tty: false } })).rejects.toThrow(/add --resume/);
    const second = await runReverify({ ...base, resume: true, io: { stderr: (s) => void (err += s), tty: false } });
    expect(second, err).toBe(0);
    const ids = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l).id);
    expect(ids).toEqual(Array.from({ length: n }, (_, i) => `n${i}`));
    expect(JSON.parse(readFileSync(ckpt, 'utf8'))).toMatchObject({ cursor: n, done: true });
  });
});

describe('reverify in process: the mapping writes of batched updates', () => {
  it('updates verified in runs (one verifyMany call per run) keep the writes their program makes', async () => {
    const txDir = join(dir, 'txs');
    mkdirSync(txDir, { recursive: true });
    const chain = new LedgerChain(1, 10);
    chain.add(5, [t.setDataNitro('official_oracle.aleo', examples.nitro.request.userData, examples.nitro.request.report)]);
    writeFileSync(join(txDir, 'tx.json'), JSON.stringify((chain.block(5) as { transactions: unknown[] }).transactions[0]));
    const out = join(dir, 'txs.out');
    const verifier = createCliVerifier({ configPath: config, workers: 0 });
    try {
      const base = { source: txDirSource(txDir, ['official_oracle.aleo']), verifier, maxInFlight: 4, annotateInForce: false, outFile: out, checkpointFile: join(dir, 'txs.ckpt'), progressIntervalMs: 0, resume: false };
      expect(await runReverify({ ...base, io: { stderr: () => {}, tty: false } })).toBe(0);
    } finally {
      await verifier.close();
    }
    const [record] = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(record).toMatchObject({ program: 'official_oracle.aleo', function: 'set_data_nitro', outcome: 'valid' });
    expect(record.mappingWrites.map((w: any) => [w.program, w.mapping, w.role])).toEqual([
      ['official_oracle.aleo', 'nitro_attested_data', 'latest'],
      ['official_oracle.aleo', 'nitro_attested_data', 'historic'],
    ]);
  });
});

describe('collateral directory reader', () => {
  const quote = parseQuote(cutTypeAReport(parseChunkedStruct(examples.sgx.request.report, REPORT_CHUNKS)));
  const root = parsePemChain(readFileSync(vectorPath('sgx/intel-root/IntelSGXRootCA.pem'), 'utf8'))[0]!;
  it('refuses a directory without manifest and an FMSPC it does not hold', async () => {
    expect(() => new DirCollateralSource(dir, root)).toThrow(/no manifest.json/);
    const d = join(dir, 'cd');
    await import('node:fs').then((fs) => fs.mkdirSync(d));
    writeFileSync(join(d, 'manifest.json'), JSON.stringify({ format: 'oracle-verifier-collateral/1', pccsUrl: 'x', fetchedAt: 'x', fmspcs: ['00a067110000'], pckCrlCas: ['processor'] }));
    await expect(new DirCollateralSource(d, root).rawForSubject(quote)).rejects.toMatchObject({ code: 'TYPEA_COLLATERAL_UNAVAILABLE', message: expect.stringMatching(/no TCB info for FMSPC 00906ed50000/) });
  });
});
