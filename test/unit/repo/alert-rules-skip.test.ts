/**
 * `npm test` on a machine without promtool: test/unit/repo/alert-rules.test.ts skips its promtool part
 * with a message naming the Debian package (prometheus) instead of failing with
 * `spawnSync promtool ENOENT`; its other tests still run. The same for the Alertmanager config
 * check without amtool (test/unit/repo/alertmanager.test.ts). Run in a child vitest whose PATH holds
 * no promtool (an empty directory) and without CI=true (where the skip turns into a failure).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';

const emptyBin = mkdtempSync(join(tmpdir(), 'verifier-no-promtool-'));
afterAll(() => rmSync(emptyBin, { recursive: true, force: true }));

function vitestChild(files: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [resolve(process.cwd(), 'node_modules/vitest/vitest.mjs'), 'run', ...files, '--reporter=verbose'], { cwd: process.cwd(), env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', fail);
    child.on('close', (code) => done({ code, out }));
  });
}

it('without promtool and amtool on PATH, the alert tests skip those parts with a message naming the package', async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: emptyBin, NO_COLOR: '1' };
  delete env.CI;
  delete env.FORCE_COLOR;
  const { code, out } = await vitestChild(['test/unit/repo/alert-rules.test.ts', 'test/unit/repo/alertmanager.test.ts'], env);
  expect(out).not.toMatch(/ENOENT/);
  expect(out).toContain('alert-rules.test.ts: promtool tests SKIPPED: no promtool on PATH (install the Debian package `prometheus`; .ci/run installs it). In CI (CI=true) they fail instead.');
  expect(out).toMatch(/↓ test\/unit\/repo\/alert-rules\.test\.ts > deploy\/alerts with promtool > every rules file passes promtool check rules/);
  expect(out).toMatch(/✓ test\/unit\/repo\/alert-rules\.test\.ts > deploy\/alerts > use only metric names the server registers/);
  // The Alertmanager config check likewise without amtool (Debian package prometheus-alertmanager).
  expect(out).toContain('alertmanager.test.ts: amtool check-config SKIPPED: no amtool on PATH (install the Debian package `prometheus-alertmanager`; .ci/run installs it). In CI (CI=true) it fails instead.');
  expect(out).toMatch(/↓ test\/unit\/repo\/alertmanager\.test\.ts > deploy\/alertmanager\.yml > passes amtool check-config/);
  expect(out).toMatch(/Tests\s+5 passed \| 2 skipped \(7\)/);
  expect(code, out).toBe(0);
});
