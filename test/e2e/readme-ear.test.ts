/**
 * The README's "Signed verdicts for other programs", as written: the server with the key the
 * README's openssl line makes, the README's curl line (against the test's port, into a temporary
 * file instead of /tmp/verdict.jwt), then the README's relying-party code run by node, which
 * prints the status the README's comment says.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, startMain, type ServiceProcess } from '../support/process.js';

const root = process.cwd();
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('## Signed verdicts for other programs'), readme.indexOf('## The docs'));
const blocks = [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], text: m[2]! }));
const shLines = blocks.find((b) => b.lang === 'sh')!.text.trim().split('\n');
const js = blocks.find((b) => b.lang === 'js')!.text;
const dir = mkdtempSync(join(tmpdir(), 'readme-ear-'));
const jwtFile = join(dir, 'verdict.jwt');

describe('README: signed verdicts', () => {
  let svc: ServiceProcess;
  beforeAll(async () => {
    const keyLine = shLines.find((l) => l.startsWith('export EAR_SIGNING_KEY='))!;
    const key = execFileSync('bash', ['-c', `${keyLine}; printf %s "$EAR_SIGNING_KEY"`], { encoding: 'utf8' });
    expect(shLines).toContain('npm start');
    svc = await startMain(['--config', resolve(root, 'config.json'), '--port', '0'], { env: { ...childEnv(), EAR_SIGNING_KEY: key } });
  });
  afterAll(async () => {
    await svc?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the curl line gets an EAR that the relying-party code verifies as affirming', () => {
    const curl = shLines.find((l) => l.startsWith('curl '))!.replaceAll('http://127.0.0.1:8080', svc.url).replace('/tmp/verdict.jwt', jwtFile);
    execFileSync('bash', ['-c', curl], { cwd: root });
    const code = js.replaceAll('http://127.0.0.1:8080', svc.url).replace('/tmp/verdict.jwt', jwtFile);
    expect(code).not.toBe(js);
    const printed = execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd: root, encoding: 'utf8' });
    expect(printed.trim()).toBe(js.match(/\/\/ (\w+)\s*$/)![1]);
  });
});
