/**
 * scripts/k8s-preflight.sh against a fake `kubectl` on PATH that prints what `kubectl version -o
 * json` prints for an old and a new server (and managed clusters' "29+" minors, a cluster that
 * cannot be reached, an old kubectl): it refuses a server older than the minimum docs/operations.md names
 * (exit 1), accepts a new one (exit 0), says when it cannot tell (exit 2) and passes its arguments
 * on to kubectl.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const SCRIPT = resolve('scripts/k8s-preflight.sh');
const dir = mkdtempSync(join(tmpdir(), 'k8s-preflight-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The fake prints $FAKE_OUT on stdout and $FAKE_ERR on stderr, exits $FAKE_EXIT, and keeps its arguments.
writeFileSync(
  join(dir, 'kubectl'),
  `#!/bin/sh\nprintf '%s\\n' "$*" > "${dir}/args"\nprintf '%s\\n' "$FAKE_OUT"\n[ -n "$FAKE_ERR" ] && printf '%s\\n' "$FAKE_ERR" >&2\nexit "\${FAKE_EXIT:-0}"\n`,
);
chmodSync(join(dir, 'kubectl'), 0o755);

const version = (minor: string, git: string) => ({ major: '1', minor, gitVersion: git, gitCommit: '0'.repeat(40), gitTreeState: 'clean', buildDate: '2025-01-01T00:00:00Z', goVersion: 'go1.23.8', compiler: 'gc', platform: 'linux/amd64' });
/** `kubectl version -o json` as kubectl prints it (two-space indent), or on one line. */
function versionJson(client: [string, string], server?: [string, string], compact = false): string {
  const doc = { clientVersion: version(...client), kustomizeVersion: 'v5.5.0', ...(server ? { serverVersion: version(...server) } : {}) };
  return compact ? JSON.stringify(doc) : JSON.stringify(doc, null, 2);
}

function preflight(out: string, opts: { exit?: number; err?: string; args?: string[] } = {}): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync('/bin/sh', [SCRIPT, ...(opts.args ?? [])], {
    encoding: 'utf8',
    env: { PATH: `${dir}:/usr/bin:/bin`, FAKE_OUT: out, FAKE_ERR: opts.err ?? '', FAKE_EXIT: String(opts.exit ?? 0) },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const NEW_CLIENT: [string, string] = ['32', 'v1.32.4'];

describe('scripts/k8s-preflight.sh', () => {
  it('refuses a server older than 1.29, saying why', () => {
    const r = preflight(versionJson(NEW_CLIENT, ['27', 'v1.27.16']));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('k8s-preflight: Kubernetes server v1.27.16 is older than 1.29, which deploy/k8s needs');
    expect(r.stderr).toContain("silently drops the audit Jobs' backoffLimitPerIndex and podFailurePolicy");
    expect(readFileSync(join(dir, 'args'), 'utf8').trim()).toBe('version -o json');
  });

  it('refuses 1.28 also as a managed cluster prints it ("28+"), and on one line', () => {
    expect(preflight(versionJson(NEW_CLIENT, ['28+', 'v1.28.15-eks-1234']), {}).code).toBe(1);
    expect(preflight(versionJson(NEW_CLIENT, ['28', 'v1.28.0'], true)).code).toBe(1);
  });

  it('accepts 1.29 and newer servers', () => {
    for (const server of [['29', 'v1.29.0'], ['29+', 'v1.29.4-gke.100'], ['33', 'v1.33.1']] as [string, string][]) {
      const r = preflight(versionJson(NEW_CLIENT, server));
      expect(r.code, server[1]).toBe(0);
      expect(r.stdout).toContain(`k8s-preflight: Kubernetes server ${server[1]} (1.29 or later: fine)`);
      expect(r.stderr).toBe('');
    }
    expect(preflight(versionJson(NEW_CLIENT, ['30', 'v1.30.2'], true)).code).toBe(0);
  });

  it('refuses a kubectl older than 1.22 (its kustomize cannot render the kustomizations)', () => {
    const r = preflight(versionJson(['20', 'v1.20.15'], ['30', 'v1.30.2']));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('k8s-preflight: kubectl v1.20.15 is older than 1.22, which deploy/k8s needs');
  });

  it('a cluster that cannot be reached: exit 2 with kubectl\'s reason', () => {
    const err = 'The connection to the server localhost:8080 was refused - did you specify the right host or port?';
    const r = preflight(versionJson(NEW_CLIENT), { exit: 1, err });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`cannot read the Kubernetes server's version (kubectl version -o json: ${err})`);
  });

  it('passes its arguments on to kubectl', () => {
    expect(preflight(versionJson(NEW_CLIENT, ['31', 'v1.31.0']), { args: ['--context', 'prod'] }).code).toBe(0);
    expect(readFileSync(join(dir, 'args'), 'utf8').trim()).toBe('version -o json --context prod');
  });

  it('no kubectl at all: exit 2', () => {
    const r = spawnSync('/bin/sh', [SCRIPT], { encoding: 'utf8', env: { PATH: '/nonexistent' } });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('kubectl not found');
  });

  it('docs/operations.md (Kubernetes) names the same minimum server version and the preflight before kubectl apply', () => {
    const min = /^MIN_SERVER_MINOR=(\d+)$/m.exec(readFileSync(SCRIPT, 'utf8'))![1];
    const ops = readFileSync('docs/operations.md', 'utf8');
    expect(ops).toContain(`Kubernetes 1.${min} or later`);
    expect(ops).toMatch(/scripts\/k8s-preflight\.sh[^\n]*\n[^\n]*kubectl apply -k deploy\/k8s\/overlays\/example/);
  });
});
