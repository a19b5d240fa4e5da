/**
 * The service entry point as a real process: startup on a config file, startup failures with a
 * clear one-line message and a non-zero exit, the reproducible-build fallback, HTTPS with TLS ≥ 1.2,
 * and graceful shutdown on SIGTERM.
 */
import { mkdtempSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import https from 'node:https';
import tls from 'node:tls';
import { describe, expect, it } from 'vitest';
import { logRecords, runMain, startMain } from '../support/process.js';
import { startLedgerNode } from '../support/ledger-node.js';
import { readVectorJson } from '../support/paths.js';
import { selfSignedTls } from '../support/selfSignedTls.js';

const targets = readVectorJson<any>('production-targets.json');
const dir = mkdtempSync(join(tmpdir(), 'verifier-main-'));

function writeConfig(name: string, cfg: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, typeof cfg === 'string' ? cfg : JSON.stringify(cfg));
  return p;
}

const good = { port: 0, host: '127.0.0.1', uniqueIdTarget: targets.uniqueIdTarget, pcrValuesTarget: targets.pcrValuesTarget, liveCheck: { skip: true, contractName: 'official_oracle.aleo' }, logLevel: 'info' };

describe('service process', () => {
  it('starts with --config PATH, serves /info, and exits 0 on SIGTERM', async () => {
    const svc = await startMain(['--config', writeConfig('good.json', good)]);
    try {
      const info: any = await (await fetch(`${svc.url}/info`)).json();
      expect(info.targetUniqueId.hexEncoded).toBe(targets.uniqueIdTargetHex);
      expect((await fetch(`${svc.url}/readyz`)).status).toBe(200);
    } finally {
      expect(await svc.stop('SIGTERM')).toBe(0);
    }
  });

  it('reads config.json from the working directory by default', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'verifier-cwd-'));
    writeFileSync(join(cwd, 'config.json'), JSON.stringify(good));
    const svc = await startMain([], { cwd });
    try {
      expect((await fetch(`${svc.url}/info`)).status).toBe(200);
    } finally {
      await svc.stop();
    }
  });

  it('exits non-zero with one line per invalid value', async () => {
    const r = await runMain(['--config', writeConfig('bad.json', { port: -1, liveCheck: { skip: 'yes' }, colour: 1 })]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n').sort()).toEqual([
      'config: colour = 1: unknown key (not part of the configuration schema; check its spelling)',
      'config: liveCheck.skip = "yes": expected a boolean',
      'config: port = -1: expected a number ≥ 0',
    ]);
  });

  it('exits non-zero on unreadable or non-JSON config and on unknown arguments (usage errors: 2)', async () => {
    const missing = await runMain(['--config', join(dir, 'missing.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/config: cannot read .*missing\.json: ENOENT/);
    const nj = await runMain(['--config', writeConfig('nj.json', '{ port: 1 ')]);
    expect(nj.code).toBe(1);
    expect(nj.stderr).toMatch(/is not valid JSON/);
    expect((await runMain(['--bogus'])).code).toBe(2);
    const help = await runMain(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/usage/);
  });

  it('refuses a modified bundled root and a configured root that is not a CA', async () => {
    const r = await runMain(['--config', writeConfig('root.json', { ...good, trustedRoots: { typeB: resolve('test/fixtures/not-a-root.pem') } })]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/trustedRoots\.typeB/);
  });

  it('runs the reproducible build when targets are missing and serves its measurements', async () => {
    const script = join(dir, 'get-enclave-id.sh');
    copyFileSync(resolve('test/fixtures/enclave-id/valid.sh'), script);
    const cfg = writeConfig('repro.json', { port: 0, host: '127.0.0.1', liveCheck: { skip: true }, reproducibleBuildScript: './get-enclave-id.sh' });
    const svc = await startMain(['--config', cfg]);
    try {
      const info: any = await (await fetch(`${svc.url}/info`)).json();
      expect(info.targetUniqueId.hexEncoded).toBe(targets.uniqueIdTargetHex);
      expect(info.targetPcrValues.hexEncoded).toEqual(targets.pcrValuesTargetHex);
    } finally {
      await svc.stop();
    }
  });

  it('fails startup clearly when the reproducible build fails', async () => {
    const script = join(dir, 'broken.sh');
    copyFileSync(resolve('test/fixtures/enclave-id/exit-nonzero.sh'), script);
    const r = await runMain(['--config', writeConfig('repro-bad.json', { port: 0, liveCheck: { skip: true }, reproducibleBuildScript: './broken.sh' })]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/startup failed: .*exit/i);
  });

  it('serves HTTPS with TLS 1.2 or later when useTls is true', async () => {
    const { keyPem, certPem } = await selfSignedTls();
    writeFileSync(join(dir, 'tls.key'), keyPem);
    writeFileSync(join(dir, 'tls.crt'), certPem);
    const svc = await startMain(['--config', writeConfig('tls.json', { ...good, useTls: true, tlsKey: 'tls.key', tlsCert: 'tls.crt' })]);
    try {
      expect(svc.url.startsWith('https://')).toBe(true);
      const body = await new Promise<string>((res, rej) => {
        https.get(`${svc.url}/info`, { ca: certPem }, (r) => {
          let b = '';
          r.on('data', (d) => (b += d));
          r.on('end', () => res(b));
        }).on('error', rej);
      });
      expect(JSON.parse(body).targetUniqueId.hexEncoded).toBe(targets.uniqueIdTargetHex);
      const port = Number(new URL(svc.url).port);
      const old = await new Promise<string>((res) => {
        const s = tls.connect({ host: '127.0.0.1', port, ca: certPem, minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' });
        s.on('secureConnect', () => {
          res(`connected ${s.getProtocol()}`);
          s.destroy();
        });
        s.on('error', (e) => res(`refused: ${e.message}`));
      });
      expect(old).toMatch(/^refused/);
      const modern = await new Promise<string>((res) => {
        const s = tls.connect({ host: '127.0.0.1', port, ca: certPem, minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' });
        s.on('secureConnect', () => {
          res(String(s.getProtocol()));
          s.destroy();
        });
        s.on('error', (e) => res(`refused: ${e.message}`));
      });
      expect(modern).toBe('TLSv1.2');
    } finally {
      await svc.stop();
    }
  });

  it('live check: starts when the ledger program holds the targets or an accepted build, exits non-zero printing both values when neither', async () => {
    const node = await startLedgerNode({ prefix: '/v1/mainnet' });
    try {
      node.setMapping('official_oracle.aleo', 'sgx_unique_id', '0u8', targets.ledgerEncoded.uniqueId, 'pretty');
      node.setMapping('official_oracle.aleo', 'nitro_pcr_values', '0u8', targets.ledgerEncoded.pcrs, 'single');
      const live = { ...good, liveCheck: { skip: false, apiBaseUrl: node.url, contractName: 'official_oracle', timeoutMs: 30_000 } };
      const svc = await startMain(['--config', writeConfig('live-ok.json', live)]);
      try {
        expect((await (await fetch(`${svc.url}/info`)).json() as any).liveCheckProgram).toBe('official_oracle.aleo');
      } finally {
        await svc.stop();
      }
      const other = '11'.repeat(32);
      const r = await runMain(['--config', writeConfig('live-bad.json', { ...live, uniqueIdTarget: other })]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(other);
      expect(r.stderr).toContain(targets.uniqueIdTargetHex);
      // The ledger's unique ID is not the target but an accepted build: the service starts and says which.
      const accepted = { ...live, uniqueIdTarget: other, acceptedBuilds: [{ source: 'the build the ledger holds', uniqueIdTarget: targets.uniqueIdTarget }] };
      const svc2 = await startMain(['--config', writeConfig('live-accepted.json', accepted)]);
      try {
        expect((await fetch(`${svc2.url}/healthz`)).status).toBe(200);
        const warning = logRecords(svc2).find((l) => l.msg?.startsWith('live check: the ledger program holds an accepted build'));
        expect(warning).toMatchObject({ level: 40, kind: 'typeA', program: 'official_oracle.aleo', mapping: 'sgx_unique_id', source: 'the build the ledger holds', target: 'uniqueIdTarget' });
      } finally {
        await svc2.stop();
      }
    } finally {
      await node.close();
    }
  });

  it('fails startup when TLS files are missing', async () => {
    const r = await runMain(['--config', writeConfig('tls-missing.json', { ...good, useTls: true, tlsKey: 'nope.key', tlsCert: 'nope.crt' })]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/config: tlsKey = ".*nope\.key": cannot read the file \(ENOENT\)/);
  });
});
