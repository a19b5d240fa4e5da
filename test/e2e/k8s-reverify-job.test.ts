/**
 * The Indexed Job of deploy/k8s/audit, run here as the Job controller and kubelet would run it:
 * N real CLI processes, each with JOB_COMPLETION_INDEX set and the container's command line from
 * the rendered manifest ($(VAR) expanded from the pod's environment: the reverify-range ConfigMap
 * pointed at the ledger-node simulator, JOB_COMPLETION_INDEX; the end height the node's tip, pinned
 * by the first pod in the results volume), the mounts mapped to directories
 * (config.json = the ConfigMap's config with this test's targets and PCCS, /results = a shared
 * directory); then the merge Job's command line. The merged output equals the unsharded run.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLedgerNode, type LedgerNode } from '../support/ledger-node.js';
import { LedgerChain, t } from '../support/ledger-chain.js';
import { recordedBundle2026, startPccsServer, type PccsServer } from '../support/pccs-server.js';
import { readVectorJson, VECTORS } from '../support/paths.js';
import { runMain } from '../support/process.js';
import { expandVars, find, findGenerated, kubectlUnavailable, render, type K8sObject } from '../support/kustomize.js';
import { formatUniqueId } from '../../src/aleo/ids.js';

const PROGRAM = 'official_oracle.aleo';
const MRENCLAVE = '58e26caa30264d74ee496f370cdf0433a82808f13fb26b885d3f1e54dc7a34df';
const AT = '2026-09-23T00:00:00Z';
const examples = readVectorJson<any>('aleo/e2e/readme-decodeReport-examples.json');
const manifest = readVectorJson<any>('nitro/manifest.json');
const doc = manifest.vectors.find((v: any) => v.file === 'oracle-nitro-report.hex');
const sgx = examples.sgx.request;
const nitro = examples.nitro.request;
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));

const unavailable = kubectlUnavailable();
if (unavailable) console.warn(`test/e2e/k8s-reverify-job.test.ts skipped: ${unavailable}`);

const lines = (text: string) => text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));


// Under CI=true a missing tool fails, never skips (CI can never pass by skipping).
it.runIf(process.env.CI === 'true' && unavailable !== undefined)('kubectl ≥ 1.22 is available (CI=true)', () => {
  expect(unavailable).toBeUndefined();
});
describe.skipIf(unavailable !== undefined)('the Indexed reverify Job and the merge Job of deploy/k8s/audit', () => {
  let dir: string;
  let results: string;
  let node: LedgerNode;
  let pccs: PccsServer;
  let audit: K8sObject[];
  let mergeJob: K8sObject;
  let config: string;
  const FROM = 1000;
  const TO = 1250; // five batches of 50: 1000-1049 … 1200-1249; the simulator's tip is 1249

  beforeAll(async () => {
    audit = render('audit');
    mergeJob = find(render('audit/merge'), 'Job', 'reverify-merge');
    dir = mkdtempSync(join(tmpdir(), 'k8s-job-'));
    results = join(dir, 'results');
    pccs = await startPccsServer(recordedBundle2026(VECTORS));
    node = await startLedgerNode();
    const chain = new LedgerChain(FROM, TO - 1);
    chain.add(1003, [t.setUniqueId(PROGRAM, formatUniqueId(Uint8Array.from(Buffer.from(MRENCLAVE, 'hex'))))]);
    chain.add(1010, [t.setDataSgx(PROGRAM, sgx.userData, sgx.report)]);
    chain.add(1060, [t.setDataNitro(PROGRAM, nitro.userData, nitro.report)]);
    // Tampered attested value (batch 1100-1149, shard 2 of 4): the binding fails.
    chain.add(1120, [t.setDataSgx(PROGRAM, sgx.userData.replace(/(c0:\s*\{[^}]*?\bf2:\s*)(\d+)u128/, (_m: string, a: string, v: string) => `${a}${BigInt(v) + 1n}u128`), sgx.report)]);
    chain.add(1170, [t.setDataNitro(PROGRAM, nitro.userData, nitro.report)]);
    chain.add(1240, [t.setDataSgx(PROGRAM, sgx.userData, sgx.report)]);
    chain.install(node);
    // The pod's /app/config.json: the audit's ConfigMap with this test's targets, PCCS and time.
    const cm = findGenerated(audit, 'ConfigMap', 'reverify-config');
    const base = JSON.parse(cm.data['config.json']);
    config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({ ...base, uniqueIdTarget: MRENCLAVE, pcrValuesTarget: [doc.pcr0, doc.pcr1, doc.pcr2], acceptedTcbStatuses: ['UpToDate', 'SWHardeningNeeded', 'OutOfDate'], pccsUrl: pccs.url, verificationTime: AT }),
    );
    mkdirSync(results);
  }, 60_000);

  afterAll(async () => {
    await node?.close();
    await pccs?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A container's command line as kubelet runs it here: $(VAR) expanded, mount paths mapped. */
  function commandLine(job: K8sObject, env: Record<string, string>): { entry: string; args: string[] } {
    const pod = job.spec.template.spec;
    const [c] = pod.containers;
    const mounts: [string, string][] = c.volumeMounts.map((m: any) => {
      const vol = pod.volumes.find((v: any) => v.name === m.name);
      if (m.mountPath === '/app/config.json') {
        expect(vol.configMap.name).toBe(findGenerated(audit, 'ConfigMap', 'reverify-config').metadata.name);
        return [m.mountPath, config];
      }
      if (vol.persistentVolumeClaim) return [m.mountPath, results];
      return [m.mountPath, join(dir, m.name)];
    });
    const map = (a: string) => {
      const m = mounts.find(([from]) => a === from || a.startsWith(`${from}/`));
      return m ? m[1] + a.slice(m[0].length) : a;
    };
    const [cmd, ...rest] = [...c.command, ...c.args].map((a: string) => map(expandVars(a, env)));
    // `oracle-verifier` in the image = the package's bin of that name (test/unit/repo/k8s.test.ts checks the link).
    const bin = pkg.bin[cmd!] as string;
    expect(bin, cmd).toBeDefined();
    return { entry: resolve(bin.replace(/^dist\//, '').replace(/\.js$/, '.ts')), args: rest };
  }

  it('N pods, one per completion index, merged, equal the unsharded run; a retried pod resumes', async () => {
    const job = find(audit, 'Job', 'reverify-shards');
    const n = job.spec.completions as number;
    expect(job.spec.completionMode).toBe('Indexed');
    expect(job.spec.parallelism).toBe(n);
    // The pod's environment: envFrom the range ConfigMap (as an overlay would set it), then env.
    const range = findGenerated(audit, 'ConfigMap', job.spec.template.spec.containers[0].envFrom[0].configMapRef.name.replace(/-[a-z0-9]{10}$/, ''));
    expect(Object.keys(range.data).sort()).toEqual(['FROM_HEIGHT', 'LEDGER_NODE', 'RPS', 'SHARDS']);
    expect(Number(range.data.SHARDS)).toBe(n);
    // No end height: the node's tip (TO - 1 here) + 1, read by the first pod and pinned for all.
    const podEnv = (i: number): Record<string, string> => ({ ...range.data, LEDGER_NODE: node.url, FROM_HEIGHT: String(FROM), RPS: '50', JOB_COMPLETION_INDEX: String(i) });
    const runPod = (i: number) => {
      const { entry, args } = commandLine(job, podEnv(i));
      return runMain(args, { entry, env: { ...process.env, ...podEnv(i), NODE_NO_WARNINGS: '1' } });
    };
    node.reset();
    const pods = await Promise.all(Array.from({ length: n }, (_, i) => runPod(i)));
    // Shard 2 holds the tampered update: exit 1, which the Job's pod failure policy takes as a
    // finding (FailIndex, no retry); every other shard exits 0.
    pods.forEach((p, i) => expect(p.code, `index ${i}: ${p.stderr}`).toBe(i === 2 % n ? 1 : 0));
    const rule = job.spec.podFailurePolicy.rules.find((r: any) => r.onExitCodes.values.includes(1));
    expect(rule.action).toBe('FailIndex');
    // Each block batch was asked for by exactly one pod.
    const starts = node.requestsTo('/blocks').map((c) => Number(new URL(c.path, 'http://x').searchParams.get('start')));
    expect([...new Set(starts)].sort()).toEqual([1000, 1050, 1100, 1150, 1200]);

    // The merge Job's command line over the shared directory.
    expect(readFileSync(join(results, 'audit-end-height'), 'utf8')).toBe(`${TO}\n`);
    const { entry, args } = commandLine(mergeJob, range.data);
    const merged = await runMain(args, { entry, env: { ...process.env, NODE_NO_WARNINGS: '1' } });
    expect(merged.code, merged.stderr).toBe(1);
    expect(merged.stderr).toMatch(/updates 5: valid 4, invalid 1, unverifiable 0/);
    expect(merged.stderr).toContain(`shards: ${n} of one scan of [${FROM}, ${TO}) of ${node.url}, each complete`);

    // The unsharded run of the same range, same config.
    const whole = join(dir, 'whole.jsonl');
    const u = await runMain(['reverify', '--node', node.url, '--from', String(FROM), '--to', String(TO), '--config', config, '--out', whole, '--progress-interval', '0'], { entry: commandLine(job, podEnv(0)).entry });
    expect(u.code, u.stderr).toBe(1);
    const mergedText = readFileSync(join(results, 'merged.jsonl'), 'utf8');
    expect(mergedText).toBe(readFileSync(whole, 'utf8'));
    const recs = lines(mergedText);
    expect(recs.filter((r) => r.kind !== 'measurement').map((r) => [r.blockHeight, r.reportValid])).toEqual([
      [1010, true],
      [1060, true],
      [1120, false],
      [1170, true],
      [1240, true],
    ]);
    expect(recs.find((r) => r.blockHeight === 1240).measurementInForce).toEqual({ matches: true, sourceHeight: 1003 });
    // Pod i wrote exactly the records of the batches i, i + N, … (50 blocks each): disjoint shards.
    for (let i = 0; i < n; i++) {
      const shard = lines(readFileSync(join(results, `shard-${i}.jsonl`), 'utf8'));
      const expected = recs.filter((r) => Math.floor((r.blockHeight - FROM) / 50) % n === i);
      expect(shard.map((r) => r.transitionId), `shard ${i}`).toEqual(expected.map((r) => r.transitionId));
    }

    // A pod of a finished index run again (the Job retrying it) resumes from its checkpoint:
    // no block asked for again, output unchanged, same exit code.
    const before = readFileSync(join(results, 'shard-0.jsonl'), 'utf8');
    node.reset();
    const again = await runPod(0);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/resuming at height/);
    expect(node.requestsTo('/blocks')).toEqual([]);
    expect(node.requestsTo('/block/height/latest')).toEqual([]); // the pinned end, not a new tip
    expect(readFileSync(join(results, 'shard-0.jsonl'), 'utf8')).toBe(before);
  }, 300_000);
});
