import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SCRIPT = resolve('get-enclave-id.sh');
const REAL_TOOLS = ['git', 'openssl', 'unzip', 'jq', 'sha256sum'];
const ALL_TOOLS = ['git', 'ego-go', 'ego', 'docker', 'curl', 'openssl', 'unzip', 'jq', 'sha256sum'];

function which(tool: string): string {
  const r = spawnSync('/bin/sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' });
  return r.stdout.trim();
}

function run(shell: string, args: string[], env: NodeJS.ProcessEnv, cwd = process.cwd()) {
  const r = spawnSync(shell, [SCRIPT, ...args], { env, cwd, encoding: 'utf8', timeout: 20_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function writeExecutable(path: string, text: string): void {
  writeFileSync(path, text);
  chmodSync(path, 0o755);
}

describe('get-enclave-id.sh', () => {
  let tmp: string;
  let fakeBin: string;
  let served: string;
  const baseEnv = (): NodeJS.ProcessEnv => ({ HOME: tmp, PATH: `${fakeBin}:/usr/bin:/bin`, ORACLE_REPO: 'https://git.invalid/notarizer.git', FAKE_CURL_DIR: served });

  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), 'get-enclave-id-'));
    fakeBin = join(tmp, 'bin');
    served = join(tmp, 'served');
    mkdirSync(fakeBin);
    mkdirSync(served);
    // curl stand-in: `-o FILE URL` copies $FAKE_CURL_DIR/<last URL path segment> and logs the URL.
    writeExecutable(
      join(fakeBin, 'curl'),
      `#!/bin/sh
out=""; url=""
while [ $# -gt 0 ]; do
  case "$1" in -o) out="$2"; shift 2 ;; --retry) shift 2 ;; -*) shift ;; *) url="$1"; shift ;; esac
done
echo "$url" >> "$FAKE_CURL_DIR/requests.log"
src="$FAKE_CURL_DIR/\${url##*/}"
[ -f "$src" ] || { echo "curl: (22) 404 for $url" >&2; exit 22; }
cp "$src" "$out"
`,
    );
    for (const t of ['ego-go', 'ego', 'docker']) writeExecutable(join(fakeBin, t), `#!/bin/sh\necho "${t} must not be reached" >&2\nexit 99\n`);
    for (const t of REAL_TOOLS) {
      const p = which(t);
      if (p && !existsSync(join(fakeBin, t))) symlinkSync(p, join(fakeBin, t));
    }
    // A "CA bundle" holding one certificate, its .sha256, and a root zip whose hash is not AWS's.
    const pem = readFileSync('trust/aws-nitro-enclaves-root-g1.pem');
    writeFileSync(join(served, 'cacert-2024-07-02.pem'), pem);
    writeFileSync(join(served, 'cacert-2024-07-02.pem.sha256'), `${createHash('sha256').update(pem).digest('hex')}  cacert-2024-07-02.pem\n`);
    writeFileSync(join(served, 'cacert-2023-01-10.pem'), pem);
    writeFileSync(join(served, 'cacert-2023-01-10.pem.sha256'), `${'0'.repeat(64)}  cacert-2023-01-10.pem\n`);
    writeFileSync(join(served, 'AWS_NitroEnclaves_Root-G1.zip'), 'PK not the AWS root zip');
  });
  afterAll(() => {
    rmSync(tmp, { recursive: true, force: true });
  });

  for (const flag of ['-h', '--help', '-?']) {
    it(`${flag} prints usage with the environment variables and exits 0`, () => {
      const r = run('/bin/bash', [flag], { PATH: '/usr/bin:/bin' });
      expect(r.status).toBe(0);
      expect(r.stdout).toContain('Usage: get-enclave-id.sh');
      for (const v of ['ORACLE_REPO', 'ORACLE_REVISION', 'CA_CERT_DATE', 'TEMP_WD', 'CA_BUNDLE_BASE_URL', 'AWS_NITRO_ROOT_URL', 'NITRO_CLI_IMAGE', 'NITRO_CLI_DOCKERFILE']) {
        expect(r.stdout).toContain(v);
      }
      expect(r.stdout).toContain('2024-07-02');
    });
  }

  it('continues under bash when started with /bin/sh', () => {
    const r = run('/bin/sh', ['-h'], { PATH: '/usr/bin:/bin' });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Oracle SGX unique ID:');
  });

  it('rejects an unknown argument', () => {
    const r = run('/bin/bash', ['--frobnicate'], { PATH: '/usr/bin:/bin', ORACLE_REPO: 'x' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('unknown argument: --frobnicate');
  });

  it('fails clearly when ORACLE_REPO is unset, printing nothing on stdout', () => {
    const r = run('/bin/bash', [], { PATH: '/usr/bin:/bin' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('ORACLE_REPO is not set');
    expect(r.stdout).toBe('');
  });

  it('names every missing prerequisite', () => {
    const r = run('/bin/bash', [], { PATH: join(tmp, 'no-such-dir'), ORACLE_REPO: 'x' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`missing prerequisite(s) on PATH: ${ALL_TOOLS.join(' ')}`);
    expect(r.stdout).toBe('');
  });

  it('names only the prerequisites that are missing', () => {
    const partial = join(tmp, 'partial-bin');
    mkdirSync(partial);
    for (const t of ['git', 'jq', 'curl']) symlinkSync(join(fakeBin, t), join(partial, t));
    const r = run('/bin/bash', [], { PATH: partial, ORACLE_REPO: 'x' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('missing prerequisite(s) on PATH: ego-go ego docker openssl unzip sha256sum');
  });

  it('refuses a non-empty TEMP_WD (it would be deleted) and leaves it alone', () => {
    const wd = join(tmp, 'precious');
    mkdirSync(wd);
    writeFileSync(join(wd, 'keep.txt'), 'keep');
    const r = run('/bin/bash', [], { ...baseEnv(), TEMP_WD: wd });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('TEMP_WD is not empty');
    expect(readFileSync(join(wd, 'keep.txt'), 'utf8')).toBe('keep');
  });

  it('verifies the CA bundle against its .sha256 and removes TEMP_WD on failure', () => {
    const wd = join(tmp, 'wd-ca');
    const r = run('/bin/bash', [], { ...baseEnv(), TEMP_WD: wd, CA_CERT_DATE: '2023-01-10', CA_BUNDLE_BASE_URL: 'https://mirror.invalid/ca/' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/cacert-2023-01-10\.pem has SHA-256 [0-9a-f]{64} but cacert-2023-01-10\.pem\.sha256 says 0{64}/);
    expect(r.stdout).toBe('');
    expect(existsSync(wd)).toBe(false);
    expect(readFileSync(join(served, 'requests.log'), 'utf8')).toContain('https://mirror.invalid/ca/cacert-2023-01-10.pem\n');
  });

  it('requires the pinned SHA-256 of the AWS root zip, whatever URL serves it', () => {
    const r = run('/bin/bash', [], { ...baseEnv(), AWS_NITRO_ROOT_URL: 'https://mirror.invalid/x/AWS_NitroEnclaves_Root-G1.zip' }, tmp);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('CA bundle verified (1 certificates)');
    expect(r.stderr).toContain('expected 8cf60e2b2efca96c6a9e71e851d00c1b6991cc09eadbe64a6a1d1b1eb9faff7c');
    expect(r.stderr).not.toContain('must not be reached');
    expect(r.stdout).toBe('');
    // the default TEMP_WD (mktemp under the current directory) is gone too
    expect(readdirSync(tmp).filter((n) => n.startsWith('get-enclave-id.'))).toEqual([]);
  });
});
