/**
 * The Alertmanager of docker-compose.yml and deploy/k8s (deploy/alertmanager.yml and its k8s copy):
 * `amtool check-config` accepts it (skipped with a message without amtool, Debian package
 * `prometheus-alertmanager`; in CI, CI=true, it fails instead); parsed, every route names a
 * declared receiver and every alert name it matches is one the rules of deploy/alerts fire.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const FILES = ['deploy/alertmanager.yml', 'deploy/k8s/base/monitoring/alertmanager/alertmanager.yml'].map((f) => resolve(process.cwd(), f));
const r = spawnSync('amtool', ['--version'], { encoding: 'utf8' });
const unavailable = r.error || r.status !== 0 ? 'no amtool on PATH (install the Debian package `prometheus-alertmanager`; .ci/run installs it)' : undefined;
const inCi = process.env.CI === 'true';
if (unavailable && !inCi) console.warn(`alertmanager.test.ts: amtool check-config SKIPPED: ${unavailable}. In CI (CI=true) it fails instead.`);

describe('deploy/alertmanager.yml', () => {
  it.skipIf(unavailable !== undefined && !inCi)('passes amtool check-config', () => {
    for (const f of FILES) expect(execFileSync('amtool', ['check-config', f], { encoding: 'utf8' })).toMatch(/SUCCESS/);
  });

  it('routes to declared receivers and matches only alerts the rules define', () => {
    const dir = resolve(process.cwd(), 'deploy/alerts');
    const alerts = new Set(
      readdirSync(dir)
        .filter((f) => f.endsWith('.rules.yml'))
        .flatMap((f) => parse(readFileSync(resolve(dir, f), 'utf8')).groups.flatMap((g: any) => g.rules.map((x: any) => x.alert))),
    );
    expect(alerts.has('LedgerWatcherStopped')).toBe(true);
    for (const f of FILES) {
      const am = parse(readFileSync(f, 'utf8'));
      const receivers = new Set(am.receivers.map((x: any) => x.name));
      const routes = [am.route, ...(am.route.routes ?? [])];
      for (const route of routes) expect(receivers.has(route.receiver), `${f}: ${route.receiver}`).toBe(true);
      const matchers = [...routes.flatMap((x: any) => x.matchers ?? []), ...(am.inhibit_rules ?? []).flatMap((i: any) => [...i.source_matchers, ...i.target_matchers])];
      for (const m of matchers) {
        const name = /^alertname="([^"]+)"$/.exec(m)?.[1];
        if (name !== undefined) expect(alerts.has(name), `${f}: ${m}`).toBe(true);
      }
    }
    expect(readFileSync(FILES[1]!, 'utf8')).toBe(readFileSync(FILES[0]!, 'utf8'));
  });
});
