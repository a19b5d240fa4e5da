/**
 * The README's first verdict, as a new user runs it: the service on the bundled config.json (no
 * network), the README's exact curl line with examples/readme-request.json → outcome valid; the
 * same request is valid only because of the bundled config's accepted build (without it:
 * TYPEB_PCR_MISMATCH); the page's "Load example" source serves the same file; /info names every
 * accepted build with its source.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMain, type ServiceProcess } from '../support/process.js';

const root = process.cwd();
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const bundled = JSON.parse(readFileSync(join(root, 'config.json'), 'utf8'));
const example = JSON.parse(readFileSync(join(root, 'examples/readme-request.json'), 'utf8'));

/** The README's curl line of "A first verdict" (the first curl line of the README). */
function readmeCurlLine(): string {
  const section = readme.slice(readme.indexOf('## A first verdict'));
  const line = section.split('\n').find((l) => l.startsWith('curl '));
  if (!line) throw new Error('README: no curl line under "A first verdict"');
  return line;
}

/** Runs the README's curl line (its pipe to jq included) against `url` instead of port 8080. */
function runReadmeLine(url: string): unknown {
  const line = readmeCurlLine().replace('http://127.0.0.1:8080', url);
  expect(line).not.toBe(readmeCurlLine());
  return JSON.parse(execFileSync('bash', ['-c', line], { cwd: root, encoding: 'utf8' }));
}

describe('README: a first verdict on the bundled config', () => {
  let svc: ServiceProcess;
  beforeAll(async () => {
    svc = await startMain(['--config', resolve(root, 'config.json'), '--port', '0']);
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('the README names the bundled config and the example file the test uses', () => {
    expect(readmeCurlLine()).toContain('--data @examples/readme-request.json http://127.0.0.1:8080/decodeReport');
    expect(bundled.liveCheck.skip).toBe(true);
    expect(Object.keys(example).sort()).toEqual(['report', 'userData']);
  });

  it('the README curl line answers outcome valid, as the README shows', () => {
    expect(runReadmeLine(svc.url)).toEqual({ outcome: 'valid', reportType: 'typeB', errorString: null });
  });

  it('every check passed (the nonce check does not apply)', async () => {
    const res = await fetch(`${svc.url}/decodeReport`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(example) });
    const body: any = await res.json();
    expect(res.status).toBe(200);
    expect(body.reportValid).toBe(true);
    expect(body.checks.filter((c: any) => c.status !== 'passed').map((c: any) => c.id)).toEqual(['typeB.nonce']);
    expect(body.checks.map((c: any) => c.id)).toContain('binding');
  });

  it('the page\'s "Load example" source is the same request', async () => {
    const res = await fetch(`${svc.url}/page/example.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual(example);
  });

  it('/info lists the accepted builds with their sources', async () => {
    const info: any = await (await fetch(`${svc.url}/info`)).json();
    expect(info.acceptedBuilds.map((b: any) => b.reportType).sort()).toEqual(['typeA', 'typeB']);
    const nitro = info.acceptedBuilds.find((b: any) => b.reportType === 'typeB');
    expect(nitro.targetPcrValues.hexEncoded[0]).toMatch(/^fcc4ced3/);
    expect(nitro.source).toContain('zkportal/oracle-verification-backend');
    // The spec's fields stay the targets.
    expect(info.targetPcrValues.hexEncoded[0]).toMatch(/^89f64b1a/);
    // The bundled config names a ledger node but runs no watcher (the ledger page says so).
    expect(bundled.watch).toBeUndefined();
    expect(info.ledgerWatcher).toBe(false);
    expect(info.ledgerPrograms).toContain('official_oracle.aleo');
  });
});

describe('README: the example is valid because of the accepted build', () => {
  let svc: ServiceProcess;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'verifier-readme-'));
    const { acceptedBuilds: _drop, ...withoutBuilds } = bundled;
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify(withoutBuilds));
    svc = await startMain(['--config', file, '--port', '0']);
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('without acceptedBuilds the same line answers invalid: PCR mismatch', async () => {
    const res = await fetch(`${svc.url}/decodeReport`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(example) });
    const body: any = await res.json();
    expect(body.outcome).toBe('invalid');
    expect(body.errorCode).toBe('TYPEB_PCR_MISMATCH');
  });
});
