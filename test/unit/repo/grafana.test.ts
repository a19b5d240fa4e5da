/**
 * The Grafana dashboard cannot drift from the metrics module: every PromQL expression of every
 * panel (and of the template variables) may only use metric names that a fresh /metrics scrape
 * declares (a replica with the ledger watcher and a PCCS), every metric family of the module is
 * shown somewhere, and every panel uses the datasource variable ${DS_PROMETHEUS}, never a
 * hard-coded uid (so Grafana's dashboard sidecar can import it into a Grafana whose Prometheus
 * has another uid).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/observability/metrics.js';
import { metricsPlugin } from '../../../src/server/metricsPlugin.js';

const GRAFANA = resolve(process.cwd(), 'grafana');
const dashboard = JSON.parse(readFileSync(resolve(GRAFANA, 'dashboards/verifier.json'), 'utf8'));
const datasourceYml = readFileSync(resolve(GRAFANA, 'provisioning/datasources/prometheus.yml'), 'utf8');
const providerYml = readFileSync(resolve(GRAFANA, 'provisioning/dashboards/dashboards.yml'), 'utf8');

const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/** Metric names used by one PromQL expression (Grafana variables allowed). */
export function metricNames(expr: string): string[] {
  const lv = /^\s*label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*,\s*[a-zA-Z_][a-zA-Z0-9_]*\s*\)\s*$/.exec(expr);
  if (lv) return [lv[1]!];
  let s = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""') // string literals (label values, regexes)
    .replace(/\{[^{}]*\}/g, ' ') // label matchers
    .replace(/\[[^\]]*\]/g, ' ') // range selectors, subqueries
    .replace(/\$\{[^}]*\}|\$[A-Za-z_]\w*/g, ' ') // Grafana variables
    .replace(/\boffset\s+-?[0-9a-zA-Z]+/g, ' ') // offset durations
    .replace(/@\s*[0-9.]+|@\s*(start|end)\s*\(\s*\)/g, ' ') // @ modifiers
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  s = s.replace(/\b\d+(\.\d+)?([eE][+-]?\d+)?\b/g, ' '); // numbers, including 1e-9
  const out: string[] = [];
  for (const m of s.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const name = m[0];
    const rest = s.slice(m.index! + name.length);
    if (/^\s*\(/.test(rest)) continue; // function or aggregation
    if (KEYWORDS.has(name.toLowerCase())) continue;
    out.push(name);
  }
  return out;
}

/** Sample names a fresh scrape of the metrics module declares (from its # TYPE lines). */
async function scrapedNames(opts: { defaultMetrics: boolean }): Promise<{ samples: Set<string>; families: Map<string, string> }> {
  const m = createMetrics({ defaultMetrics: opts.defaultMetrics });
  // What a replica that runs the ledger watcher and has a PCCS registers (src/server/ledgerFeature.ts, src/compose.ts).
  m.sink.registerLedgerHeights(() => ({ scannedHeight: 10, tipHeight: 12 }));
  m.sink.registerPccsUp(() => true);
  const app = Fastify();
  await app.register(metricsPlugin(m));
  const r = await app.inject({ method: 'GET', url: '/metrics' });
  await app.close();
  expect(r.statusCode).toBe(200);
  const samples = new Set<string>();
  const families = new Map<string, string>();
  for (const line of r.body.split('\n')) {
    const t = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (!t) continue;
    const [, name, type] = t as unknown as [string, string, string];
    families.set(name, type);
    if (type === 'histogram') for (const suf of ['_bucket', '_sum', '_count']) samples.add(name + suf);
    else if (type === 'summary') for (const suf of ['', '_sum', '_count']) samples.add(name + suf);
    else samples.add(name);
  }
  return { samples, families };
}

interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  gridPos: { h: number; w: number; x: number; y: number };
  targets?: { expr: string; refId: string; datasource?: { type: string; uid: string } }[];
  panels?: Panel[];
}

function allPanels(): Panel[] {
  const out: Panel[] = [];
  const walk = (ps: Panel[]) => {
    for (const p of ps) {
      out.push(p);
      if (p.panels) walk(p.panels);
    }
  };
  walk(dashboard.panels);
  return out;
}

function allExprs(): { where: string; expr: string }[] {
  const out: { where: string; expr: string }[] = [];
  for (const p of allPanels()) for (const t of p.targets ?? []) out.push({ where: `panel ${p.id} "${p.title}" ${t.refId}`, expr: t.expr });
  for (const v of dashboard.templating.list) {
    if (v.type === 'query') out.push({ where: `variable $${v.name}`, expr: typeof v.query === 'string' ? v.query : v.query.query });
  }
  return out;
}

describe('metric name extraction', () => {
  it('finds metric names and only metric names', () => {
    expect(metricNames('histogram_quantile(0.99, sum by (le, route) (rate(verifier_x_bucket{route="/a", instance=~"$instance"}[$__rate_interval])))')).toEqual(['verifier_x_bucket']);
    expect(metricNames('sum by (cache) (rate(a_total[5m])) / clamp_min(sum(rate(b_total{c="or"}[5m])) + c_total offset 5m, 1e-9) > bool 0')).toEqual(['a_total', 'b_total', 'c_total']);
    expect(metricNames('label_values(verifier_http_requests_total, instance)')).toEqual(['verifier_http_requests_total']);
    expect(metricNames('verifier_typo_totl and on (instance) up')).toEqual(['verifier_typo_totl', 'up']);
  });
});

describe('grafana/dashboards/verifier.json', () => {
  it('is a provisionable dashboard: uid, unique panel ids, panels on the 24-column grid', () => {
    expect(dashboard.uid).toMatch(/^[a-zA-Z0-9_-]{1,40}$/);
    expect(typeof dashboard.title).toBe('string');
    const panels = allPanels();
    const ids = panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of panels) {
      expect(p.gridPos.x + p.gridPos.w, `panel ${p.id}`).toBeLessThanOrEqual(24);
      if (p.type !== 'row') expect(p.targets?.length ?? 0, `panel ${p.id} "${p.title}" has no query`).toBeGreaterThan(0);
    }
  });

  it('uses the datasource variable ${DS_PROMETHEUS} (of type prometheus), never a hard-coded datasource uid', () => {
    const uid = '${DS_PROMETHEUS}';
    const dsVar = dashboard.templating.list.find((v: any) => v.name === 'DS_PROMETHEUS');
    expect(dsVar).toMatchObject({ type: 'datasource', query: 'prometheus' });
    // The provisioned Prometheus is the default, so the variable picks it in docker-compose.
    expect(/^\s*type:\s*prometheus\s*$/m.test(datasourceYml)).toBe(true);
    expect(datasourceYml).toMatch(/^\s*isDefault:\s*true\s*$/m);
    for (const p of allPanels().filter((x) => x.type !== 'row')) {
      expect(p.datasource, `panel ${p.id}`).toEqual({ type: 'prometheus', uid });
      for (const t of p.targets ?? []) if (t.datasource) expect(t.datasource, `panel ${p.id} ${t.refId}`).toEqual({ type: 'prometheus', uid });
    }
    for (const v of dashboard.templating.list) if (v.datasource) expect(v.datasource, `variable $${v.name}`).toEqual({ type: 'prometheus', uid });
    // No datasource anywhere in the file (annotations, links, nested options) names a uid of its own.
    const uids: string[] = [];
    const walk = (o: unknown): void => {
      if (Array.isArray(o)) o.forEach(walk);
      else if (o && typeof o === 'object') {
        for (const [k, v] of Object.entries(o)) {
          if (k === 'datasource' && v && typeof v === 'object' && 'uid' in v) uids.push(String((v as { uid: unknown }).uid));
          else if (k === 'datasource' && typeof v === 'string') uids.push(v);
          else walk(v);
        }
      }
    };
    walk(dashboard);
    expect(uids.length).toBeGreaterThan(30);
    expect(uids.filter((u) => u !== uid)).toEqual([]);
    // the provider loads the directory docker-compose.yml mounts the dashboards into
    expect(providerYml).toMatch(/path:\s*\/var\/lib\/grafana\/dashboards/);
  });

  it('references only metric names that the metrics module registers', async () => {
    const { samples } = await scrapedNames({ defaultMetrics: true });
    expect(samples.size).toBeGreaterThan(20);
    const unknown: string[] = [];
    for (const { where, expr } of allExprs()) {
      const names = metricNames(expr);
      expect(names.length, `${where}: no metric in ${expr}`).toBeGreaterThan(0);
      for (const n of names) if (!samples.has(n)) unknown.push(`${where}: ${n}`);
    }
    expect(unknown).toEqual([]);
  });

  it('uses histogram_quantile only over _bucket series grouped by le', () => {
    for (const { where, expr } of allExprs()) {
      if (!expr.includes('histogram_quantile')) continue;
      expect(expr, where).toMatch(/histogram_quantile\(0\.\d+, sum by \(le[,)]/);
      for (const n of metricNames(expr)) expect(n, where).toMatch(/_bucket$/);
    }
  });

  it('shows every metric family of the module (not counting the default process metrics)', async () => {
    const { families } = await scrapedNames({ defaultMetrics: false });
    expect(families.size).toBeGreaterThanOrEqual(15);
    const used = new Set(allExprs().flatMap(({ expr }) => metricNames(expr)));
    const unshown = [...families].filter(([name, type]) => (type === 'histogram' ? !['_bucket', '_sum', '_count'].some((s) => used.has(name + s)) : !used.has(name))).map(([n]) => n);
    expect(unshown).toEqual([]);
  });

  it('has the required views: throughput, p50/p90/p99 latency, failure codes, pool, caches, PCCS, event-loop lag', () => {
    const exprs = allExprs().map((e) => e.expr);
    const has = (re: RegExp) => exprs.some((e) => re.test(e));
    expect(has(/rate\(verifier_http_requests_total/)).toBe(true);
    for (const q of ['0.5', '0.9', '0.99']) expect(has(new RegExp(`histogram_quantile\\(${q.replace('.', '\\.')}, .*verifier_http_request_duration_seconds_bucket`))).toBe(true);
    expect(has(/sum by \(code\).*verifier_verification_failures_total/)).toBe(true);
    expect(has(/verifier_pool_queue_size/) && has(/verifier_pool_utilization/)).toBe(true);
    expect(has(/verifier_cache_hits_total.*verifier_cache_misses_total/)).toBe(true);
    expect(has(/verifier_upstream_request_duration_seconds_bucket\{[^}]*service="pccs"/)).toBe(true);
    expect(has(/verifier_upstream_errors_total\{[^}]*service="pccs"/)).toBe(true);
    expect(has(/verifier_nodejs_eventloop_lag/)).toBe(true);
    expect(has(/verifier_pccs_up/)).toBe(true);
  });

  it('is the only dashboard and valid JSON (parsed above)', () => {
    expect(readdirSync(resolve(GRAFANA, 'dashboards')).filter((f) => f.endsWith('.json'))).toEqual(['verifier.json']);
  });
});

describe('deploy topology (docker-compose.yml, deploy/nginx.conf, deploy/prometheus.yml, Dockerfile)', () => {
  const root = process.cwd();
  const read = (p: string) => readFileSync(resolve(root, p), 'utf8');
  const compose = read('docker-compose.yml');
  const nginx = read('deploy/nginx.conf');
  const prom = read('deploy/prometheus.yml');
  const dockerfile = read('Dockerfile');

  it('nginx upstreams, Prometheus targets and compose replicas are the same set', () => {
    const services = [...compose.matchAll(/^ {2}(verifier-\d+):/gm)].map((m) => `${m[1]}:8080`).sort();
    const upstreams = [...nginx.matchAll(/^\s*server\s+(verifier-\d+:8080)\b/gm)].map((m) => m[1]!).sort();
    const targets = [...prom.matchAll(/^\s*-\s*(verifier-\d+:8080)\s*$/gm)].map((m) => m[1]!).sort();
    expect(services.length).toBeGreaterThanOrEqual(2);
    expect(upstreams).toEqual(services);
    expect(targets).toEqual(services);
    expect(prom).toMatch(/metrics_path:\s*\/metrics/);
  });

  it('the mounted config is valid for the real loader, listens where nginx and the health check look, and matches the body limit', async () => {
    const { loadConfig } = await import('../../../src/config/load.js');
    const cfg = loadConfig(resolve(root, 'deploy/config.json'));
    expect(cfg.port).toBe(8080);
    expect(cfg.host).toBe('0.0.0.0');
    expect(cfg.tls).toBeUndefined();
    expect(new URL(cfg.pccsUrl!).host).toBe('pccs:8081');
    expect(compose).toMatch(/\.\/deploy\/config\.json:\/app\/config\.json:ro/);
    const maxBody = /client_max_body_size\s+(\d+)k;/.exec(nginx);
    expect(Number(maxBody?.[1]) * 1024).toBe(cfg.bodyLimit);
    expect(compose).toMatch(/fetch\('http:\/\/127\.0\.0\.1:8080\/healthz'/);
  });

  it('Grafana and Prometheus are wired to the provisioning and the datasource url', () => {
    expect(compose).toMatch(/\.\/grafana\/provisioning:\/etc\/grafana\/provisioning:ro/);
    expect(compose).toMatch(/\.\/grafana\/dashboards:\/var\/lib\/grafana\/dashboards:ro/);
    expect(compose).toMatch(/\.\/deploy\/prometheus\.yml:\/etc\/prometheus\/prometheus\.yml:ro/);
    expect(datasourceYml).toMatch(/url:\s*http:\/\/prometheus:9090/);
    expect(compose).toMatch(/^ {2}prometheus:/m);
    expect(compose).toMatch(/API_KEY: \$\{API_KEY/);
    expect(compose).toMatch(/ADMINPASS: \$\{ADMINPASS/);
  });

  it('the image runs dist/src/main.js on /app/config.json as a non-root user with a /healthz health check', () => {
    expect(dockerfile).toMatch(/^FROM node:20-slim/m);
    expect(dockerfile).toMatch(/npm ci/);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\\\n.*HEALTHCHECK_URL/m);
    expect(dockerfile).toMatch(/ENV HEALTHCHECK_URL=http:\/\/127\.0\.0\.1:8080\/healthz/);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["node", "dist\/src\/main\.js"\]\nCMD \["--config", "\/app\/config\.json"\]$/m);
  });
});
