/**
 * The Prometheus alert rules (deploy/alerts/*.rules.yml): valid for promtool, their unit tests pass
 * (deploy/alerts/*.rules.test.yml), they use only metric names the real server registers (a
 * replica with the ledger watcher and a PCCS; a plain replica exports no ledger height), and the
 * docker-compose Prometheus loads them, scrapes the ledger watcher and sends to the Alertmanager.
 * Without promtool (Debian package `prometheus`) the promtool part is skipped with a message (in CI,
 * CI=true, it fails instead), as the nginx and Go tests do.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { startLedgerNode, type LedgerNode } from '../../support/ledger-node.js';
import { startServer, type RunningServer } from '../../support/server.js';
import { targets } from '../../support/nitro-pair.js';
import { createMetrics } from '../../../src/observability/metrics.js';
import { REPORT_TYPES } from '../../../src/verify/kinds/index.js';

const ALERTS = resolve(process.cwd(), 'deploy/alerts');
const RULE_FILES = readdirSync(ALERTS).filter((f) => f.endsWith('.rules.yml')).sort();

/** Why promtool cannot run here (undefined: it can). */
function promtoolUnavailable(): string | undefined {
  const r = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
  return r.error || r.status !== 0 ? 'no promtool on PATH (install the Debian package `prometheus`; .ci/run installs it)' : undefined;
}
const unavailable = promtoolUnavailable();
const inCi = process.env.CI === 'true';
if (unavailable && !inCi) console.warn(`alert-rules.test.ts: promtool tests SKIPPED: ${unavailable}. In CI (CI=true) they fail instead.`);

const promtool = (...args: string[]) => execFileSync('promtool', args, { cwd: ALERTS, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

describe.skipIf(unavailable !== undefined && !inCi)('deploy/alerts with promtool', () => {
  it('every rules file passes promtool check rules and its promtool unit tests', () => {
    expect(RULE_FILES).toEqual(expect.arrayContaining(['ledger.rules.yml', 'resources.rules.yml', 'targets.rules.yml', 'verifier.rules.yml']));
    for (const f of RULE_FILES) {
      expect(promtool('check', 'rules', f)).toMatch(/SUCCESS: \d+ rules found/);
      expect(promtool('test', 'rules', f.replace(/\.yml$/, '.test.yml'))).toMatch(/SUCCESS/);
    }
  });
});

describe('deploy/alerts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'verifier-alert-metrics-'));
  const servers: RunningServer[] = [];
  let node: LedgerNode | undefined;
  afterAll(async () => {
    for (const s of servers) await s.close();
    await node?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const scrapeNames = async (s: RunningServer) => {
    const text = await (await fetch(`${s.url}/metrics`)).text();
    return new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((x) => x[1]!));
  };
  const base = { uniqueIdTarget: '58e26caa30264d74ee496f370cdf0433a82808f13fb26b885d3f1e54dc7a34df', pcrValuesTarget: targets.pcrValuesTarget };

  it('use only metric names the server registers (a watcher and a PCCS configured); a plain replica exports no ledger height', async () => {
    node = await startLedgerNode();
    // The PCCS URL is the ledger simulator's: only its being configured matters here (verifier_pccs_up).
    const watcher = await startServer({ ...base, pccsUrl: node.url, liveCheck: { skip: true, apiBaseUrl: node.url }, watch: { enabled: true, database: join(dir, 'ledger.db'), pollIntervalMs: 60_000 } });
    servers.push(watcher);
    const plain = await startServer({ ...base, pccsUrl: node.url, liveCheck: { skip: true, apiBaseUrl: node.url } });
    servers.push(plain);
    const declared = await scrapeNames(watcher);
    const used = new Set(RULE_FILES.flatMap((f) => [...readFileSync(resolve(ALERTS, f), 'utf8').matchAll(/\bverifier_[a-z0-9_]+/g)].map((x) => x[0])));
    expect(used.size).toBeGreaterThanOrEqual(8);
    expect(used.has('verifier_pccs_up') && used.has('verifier_ledger_scanned_height')).toBe(true);
    for (const name of used) expect(declared.has(name), name).toBe(true);
    const plainNames = await scrapeNames(plain);
    expect(plainNames.has('verifier_http_requests_total')).toBe(true);
    expect(plainNames.has('verifier_ledger_scanned_height')).toBe(false);
    expect(plainNames.has('verifier_ledger_tip_height')).toBe(false);
  });

  it('PccsUnreachable tells typeA use by verifier_verifications_total{kind="typeA"}, the label a typeA verification is counted under', async () => {
    const rules = readFileSync(resolve(ALERTS, 'verifier.rules.yml'), 'utf8');
    const kinds = [...rules.matchAll(/verifier_verifications_total\{kind="([^"]+)"\}/g)].map((x) => x[1]!);
    expect(kinds).toEqual(['typeA', 'typeA']);
    expect(REPORT_TYPES).toContain('typeA');
    const m = createMetrics({ defaultMetrics: false });
    m.sink.observeVerification('typeA', false, 'PCCS_UNAVAILABLE', 0.01);
    expect(await m.registry.metrics()).toMatch(/^verifier_verifications_total\{kind="typeA",outcome="unverifiable"\} 1$/m);
  });

  it('VerifierMemoryNearLimit uses the memory limit deploy/k8s/sizing sets for the verifier and the watcher', () => {
    const rule = readFileSync(resolve(ALERTS, 'resources.rules.yml'), 'utf8');
    const mib = /verifier_process_resident_memory_bytes\) > 0\.9 \* (\d+) \* 1024 \* 1024/.exec(rule);
    expect(mib).not.toBeNull();
    const sizing = readFileSync(resolve(process.cwd(), 'deploy/k8s/sizing/kustomization.yaml'), 'utf8');
    for (const c of ['verifier', 'watcher']) {
      const limit = new RegExp(`- name: ${c}\\n\\s+resources:[\\s\\S]*?limits:\\n\\s+cpu: \\S+\\n\\s+memory: (\\d+)Mi`).exec(sizing);
      expect(limit?.[1], c).toBe(mib![1]);
    }
  });

  it('are loaded by the compose Prometheus, which scrapes the one ledger watcher of docker-compose.yml and sends to its Alertmanager', () => {
    const prom = readFileSync(resolve(process.cwd(), 'deploy/prometheus.yml'), 'utf8');
    const compose = readFileSync(resolve(process.cwd(), 'docker-compose.yml'), 'utf8');
    // Each rule file named one by one (no glob); ledger.rules.yml because a watcher is scraped here.
    const loaded = [...prom.matchAll(/^\s+- \/etc\/prometheus\/alerts\/(\S+)$/gm)].map((x) => x[1]!).sort();
    expect(prom).not.toMatch(/alerts\/\*/);
    expect(loaded).toEqual(RULE_FILES);
    expect(compose).toMatch(/\.\/deploy\/alerts:\/etc\/prometheus\/alerts:ro/);
    expect(prom).toMatch(/^\s*-\s*ledger-watcher:8080\s*$/m);
    // The up{job=...} rules name the scrape jobs of this file: the replicas' in targets.rules.yml,
    // the watcher's in ledger.rules.yml.
    const jobs = new Set([...prom.matchAll(/^\s*- job_name: (\S+)$/gm)].map((x) => x[1]!));
    const upJobs = (f: string) => [...new Set([...readFileSync(resolve(ALERTS, f), 'utf8').matchAll(/up\{job="([^"]+)"\}/g)].map((x) => x[1]!))];
    expect(upJobs('targets.rules.yml')).toEqual(['verifier']);
    expect(upJobs('ledger.rules.yml')).toEqual(['ledger-watcher']);
    expect([...jobs].sort()).toEqual(['ledger-watcher', 'verifier']);
    expect(prom).toMatch(/alerting:\n\s+alertmanagers:\n\s+- static_configs:\n\s+- targets:\n\s+- alertmanager:9093/);
    expect([...compose.matchAll(/^ {2}ledger-watcher:/gm)]).toHaveLength(1);
    expect([...compose.matchAll(/^ {2}alertmanager:/gm)]).toHaveLength(1);
    expect(compose).toMatch(/\.\/deploy\/config-watch\.json:\/app\/config-watch\.json:ro/);
    const cfg = loadConfig(resolve(process.cwd(), 'deploy/config-watch.json'));
    expect(cfg.watch?.database).toBe('/data/ledger.db');
    expect(cfg.port).toBe(8080);
  });
});
