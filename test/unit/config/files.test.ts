/**
 * Files the config names that are no small regular file (issue 48, item 8): a FIFO, a device
 * (`/dev/zero`, `/dev/urandom`), a directory, a file over the bound, and a config nested 100,000
 * levels deep each fail startup with one config line (before this, a FIFO or a device hung it and
 * the deep config ended in a RangeError stack). The FIFO has no writer: the read must not wait.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { loadTrustRoot } from '../../../src/attestation/trustRoots.js';
import { bootstrap } from '../../../src/bootstrap.js';
import { resolveConfig } from '../../../src/config/load.js';
import { silentLog } from '../../support/server.js';
import { readVectorJson } from '../../support/paths.js';

const dir = mkdtempSync(join(tmpdir(), 'config-files-'));
const fifo = join(dir, 'fifo');
execFileSync('mkfifo', [fifo]);
const message = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return `${(e as { code?: string }).code}: ${(e as Error).message}`;
  }
  return 'no error';
};

describe('config.json itself', () => {
  it('a FIFO, a device, a directory and an oversized file are refused without reading them', () => {
    expect(message(() => loadConfig(fifo))).toBe(`CONFIG_NOT_FOUND: config: cannot read ${fifo}: not a regular file (a FIFO)`);
    expect(message(() => loadConfig('/dev/zero'))).toBe('CONFIG_NOT_FOUND: config: cannot read /dev/zero: not a regular file (a device)');
    expect(message(() => loadConfig(dir))).toBe(`CONFIG_NOT_FOUND: config: cannot read ${dir}: not a regular file (a directory)`);
    const big = join(dir, 'big.json');
    writeFileSync(big, `{"port":8080,"x":"${'a'.repeat(1024 * 1024)}"}`);
    expect(message(() => loadConfig(big))).toMatch(/^CONFIG_NOT_FOUND: config: cannot read .*big\.json: 1048596 bytes, more than the 1048576 a config file may have$/);
  });

  it('a config nested 100,000 levels deep is one config line, not a stack overflow', () => {
    const deep = join(dir, 'deep.json');
    writeFileSync(deep, `{"port":8080,"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    expect(message(() => loadConfig(deep))).toBe(`CONFIG_NOT_JSON: config: ${deep} nests 100001 levels deep; a config is at most 32 deep`);
    // Brackets inside strings do not count.
    const strings = join(dir, 'strings.json');
    writeFileSync(strings, JSON.stringify({ port: 8080, liveCheck: { skip: true, contractName: `x${'['.repeat(100)}` } }));
    expect(message(() => loadConfig(strings))).not.toMatch(/nests/);
  });
});

describe('files the config names', () => {
  it('a trust root that is a FIFO or /dev/urandom is refused', () => {
    expect(message(() => loadTrustRoot('typeA', fifo, {}))).toBe(`CONFIG_BAD_TRUST_ROOT: config: trustedRoots.typeA = ${JSON.stringify(fifo)}: not a regular file (a FIFO)`);
    expect(message(() => loadTrustRoot('typeB', '/dev/urandom', {}))).toBe('CONFIG_BAD_TRUST_ROOT: config: trustedRoots.typeB = "/dev/urandom": not a regular file (a device)');
  });

  it('a TLS key that is a FIFO fails startup with its config line', async () => {
    const targets = readVectorJson<any>('production-targets.json');
    writeFileSync(join(dir, 'tls.crt'), 'x');
    const config = resolveConfig({ port: 0, host: '127.0.0.1', workers: 0, liveCheck: { skip: true }, uniqueIdTarget: targets.uniqueIdTarget, pcrValuesTarget: targets.pcrValuesTarget, useTls: true, tlsKey: fifo, tlsCert: 'tls.crt' }, dir);
    const e = await bootstrap(config, silentLog, { logger: false }).then(
      () => undefined,
      (x: unknown) => x as Error & { code?: string },
    );
    expect(`${e?.code}: ${e?.message}`).toBe(`CONFIG_BAD_TLS: config: tlsKey = ${JSON.stringify(fifo)}: not a regular file (a FIFO)`);
  });
});
