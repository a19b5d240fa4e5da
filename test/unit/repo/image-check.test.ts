// scripts/image-check.sh builds and runs the image in CI (.ci/run); it needs root, podman and
// several minutes, so the test suite checks what can go stale without running it: the script
// parses, CI runs it, it looks for the metric the server exports, and the Dockerfile compiles its
// native modules without downloads in the stage that has the compiler, and only there.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = process.cwd();
const read = (p: string) => readFileSync(resolve(root, p), 'utf8');

describe('the image check (scripts/image-check.sh)', () => {
  const script = read('scripts/image-check.sh');

  it('is valid bash', () => {
    const r = spawnSync('bash', ['-n', 'scripts/image-check.sh'], { cwd: root, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('runs in CI after the tests, with the Debian packages it needs installed first', () => {
    const ci = read('.ci/run');
    const lines = ci.split('\n');
    const run = lines.indexOf('scripts/image-check.sh');
    expect(run).toBeGreaterThan(lines.findIndex((l) => l.includes('npm test')));
    expect(ci.indexOf('apt-get install -y -qq podman runc debootstrap')).toBeGreaterThan(-1);
    expect(ci.indexOf('apt-get install -y -qq podman runc debootstrap')).toBeLessThan(ci.indexOf('\nscripts/image-check.sh'));
  });

  it('checks the hash-kernel series the server exports, under its exported name', () => {
    const metrics = read('src/observability/metrics.ts');
    expect(metrics).toMatch(/name: p\('hash_backend_info'\)[^\n]*labelNames: \['backend'\]/);
    expect(script).toContain(`grep -qxE 'verifier_hash_backend_info\\{backend="native(-adx)?"\\} 1'`);
    expect(metrics).toMatch(/name: p\('bhp_backend_info'\)[^\n]*labelNames: \['backend'\]/);
    expect(script).toContain(`grep -qxF 'verifier_bhp_backend_info{backend="native"} 1'`);
    expect(script).toMatch(/REQUEST=\$\{IMAGE_CHECK_REQUEST:-examples\/readme-request\.json\}/);
    expect(script).toMatch(/\[ "\$outcome" = valid \] \|\| fail/);
  });
});

describe('the Dockerfile builds its native modules without downloads', () => {
  const docker = read('Dockerfile');
  const stages = docker.split(/^(?=FROM )/m).filter((s) => s.startsWith('FROM '));

  it('every stage that runs install scripts has the compiler, Node\'s headers and no prebuilt download; the others run none', () => {
    const installing = stages.filter((s) => /npm ci(?![^\n]*--ignore-scripts)/.test(s));
    expect(installing.length).toBe(1);
    for (const s of installing) {
      expect(s).toMatch(/apt-get install -y --no-install-recommends python3 make g\+\+/);
      expect(s).toMatch(/^ENV npm_config_nodedir=\/usr\/local$/m);
      expect(s).toMatch(/echo 'buildFromSource=true' > \.prebuild-installrc/);
    }
    const final = stages.at(-1)!;
    expect(final).not.toMatch(/npm ci|apt-get|g\+\+/);
  });
});
