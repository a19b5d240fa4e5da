/**
 * `reverify --ear-out`: the README's typeB example and the same report with a byte changed, as a
 * --jsonl source on the bundled config (offline): one EAR per update, each verified with jose
 * against the public key of the signing key and matching its JSONL record; the signed summary's
 * digests are SHA-256 of the --out file and of the EAR lines; the key is in no output; without
 * EAR_SIGNING_KEY the command is a usage error before anything is scanned.
 */
import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jwtVerify } from 'jose';
import { childEnv, runMain } from '../support/process.js';

const root = process.cwd();
const CLI = resolve(root, 'src/cli/main.ts');
const example = JSON.parse(readFileSync(join(root, 'examples/readme-request.json'), 'utf8'));
const dir = mkdtempSync(join(tmpdir(), 'ear-out-'));
const P = 'org.aleo-oracle-verifier.';
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function tampered(report: string): string {
  const at = report.indexOf('u128', Math.floor(report.length * 0.6)) - 1;
  return report.slice(0, at) + (report[at] === '1' ? '2' : '1') + report.slice(at + 1);
}

describe('reverify --ear-out', () => {
  const { privateKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
  const publicKey = createPublicKey(privateKey);
  const input = join(dir, 'in.jsonl');
  writeFileSync(input, `${JSON.stringify({ ...example, id: 'good' })}\n${JSON.stringify({ ...example, report: tampered(example.report), id: 'bad' })}\n`);
  const args = (out: string, ears: string) => ['reverify', '--jsonl', input, '--out', out, '--ear-out', ears, '--config', join(root, 'config.json'), '--progress-interval', '0'];

  it('writes one verified EAR per update and a signed summary of the records', async () => {
    const out = join(dir, 'out.jsonl');
    const earsFile = join(dir, 'ears.jsonl');
    const run = await runMain(args(out, earsFile), { entry: CLI, env: { ...childEnv(), NODE_NO_WARNINGS: '1', EAR_SIGNING_KEY: pem } });
    expect(run.code, run.stderr).toBe(1); // one update is invalid
    const records = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const lines = readFileSync(earsFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(records.length + 1);
    for (const [i, r] of records.entries()) {
      expect(lines[i].id).toBe(r.id);
      const { payload } = await jwtVerify(lines[i].ear, publicKey, { typ: 'eat+jwt', algorithms: ['EdDSA'] });
      const a = (payload.submods as any)[r.kind];
      expect(a['ear.status']).toBe(r.outcome === 'valid' ? 'affirming' : 'contraindicated');
      expect(a[`${P}outcome`]).toBe(r.outcome);
      expect(a[`${P}id`]).toBe(r.id);
      expect(a[`${P}error-code`]).toBe(r.errorCode);
    }
    expect(records.map((r) => r.outcome)).toEqual(['valid', 'invalid']);
    const { payload } = await jwtVerify(lines.at(-1).summary, publicKey, { typ: 'eat+jwt' });
    const s = (payload.submods as any).audit;
    const earText = readFileSync(earsFile, 'utf8');
    const earLines = earText.slice(0, earText.lastIndexOf('{"summary"'));
    expect(s[`${P}records-sha256`]).toBe(createHash('sha256').update(readFileSync(out)).digest('hex'));
    expect(s[`${P}ears-sha256`]).toBe(createHash('sha256').update(earLines).digest('hex'));
    expect(s[`${P}counts`]).toEqual({ valid: 1, invalid: 1 });
    expect(s[`${P}completeness`]).toBe('not_checked');
    const keyBody = pem.split('\n')[1]!;
    for (const text of [run.stdout, run.stderr, earText, readFileSync(out, 'utf8')]) expect(text).not.toContain(keyBody);
  });

  it('without EAR_SIGNING_KEY: a usage error, nothing written', async () => {
    const out = join(dir, 'out2.jsonl');
    const { EAR_SIGNING_KEY: _k, ...env } = childEnv();
    const run = await runMain(args(out, join(dir, 'ears2.jsonl')), { entry: CLI, env: { ...env, NODE_NO_WARNINGS: '1' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('EAR_SIGNING_KEY');
    expect(existsSync(out)).toBe(false);
  });
});
