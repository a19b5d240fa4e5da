/**
 * The Prometheus alert rules on the ledger watcher (deploy/alerts/ledger.rules.yml): valid for
 * promtool, their unit tests pass (an invalid update landed; the watcher lags; it stopped), they
 * use only metrics the service exports, and the docker-compose Prometheus loads them and scrapes
 * the ledger watcher.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/observability/metrics.js';
import { metricsPlugin } from '../../src/server/metricsPlugin.js';
import { loadConfig } from '../../src/config/load.js';

const ALERTS = resolve(process.cwd(), 'deploy/alerts');
const promtool = (...args: string[]) => execFileSync('promtool', args, { cwd: ALERTS, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

describe('deploy/alerts/ledger.rules.yml', () => {
  it('passes promtool check rules and its promtool unit tests', () => {
    expect(promtool('check', 'rules', 'ledger.rules.yml')).toMatch(/SUCCESS: 7 rules found/);
    expect(promtool('test', 'rules', 'ledger.rules.test.yml')).toMatch(/SUCCESS/);
  });

  it('uses only metric names a scrape of the service declares', async () => {
    const m = createMetrics({ defaultMetrics: false });
    const app = Fastify();
    await app.register(metricsPlugin(m));
    const scrape = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    await app.close();
    const declared = new Set([...scrape.matchAll(/^# TYPE (\S+) /gm)].map((x) => x[1]!));
    const used = new Set([...readFileSync(resolve(ALERTS, 'ledger.rules.yml'), 'utf8').matchAll(/\bverifier_[a-z_]+/g)].map((x) => x[0]));
    expect(used.size).toBeGreaterThanOrEqual(3);
    for (const name of used) expect(declared.has(name), name).toBe(true);
  });

  it('is loaded by the compose Prometheus, which scrapes the one ledger watcher of docker-compose.yml', () => {
    const prom = readFileSync(resolve(process.cwd(), 'deploy/prometheus.yml'), 'utf8');
    const compose = readFileSync(resolve(process.cwd(), 'docker-compose.yml'), 'utf8');
    expect(prom).toMatch(/rule_files:\n\s+- \/etc\/prometheus\/alerts\/\*\.rules\.yml/);
    expect(compose).toMatch(/\.\/deploy\/alerts:\/etc\/prometheus\/alerts:ro/);
    expect(prom).toMatch(/^\s*-\s*ledger-watcher:8080\s*$/m);
    expect([...compose.matchAll(/^ {2}ledger-watcher:/gm)]).toHaveLength(1);
    expect(compose).toMatch(/\.\/deploy\/config-watch\.json:\/app\/config-watch\.json:ro/);
    const cfg = loadConfig(resolve(process.cwd(), 'deploy/config-watch.json'));
    expect(cfg.watch?.database).toBe('/data/ledger.db');
    expect(cfg.port).toBe(8080);
  });
});
