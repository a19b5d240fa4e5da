/**
 * typeA in the server from a collateral directory (config `collateralDir`): the shipped example
 * (examples/offline-sgx: the README SGX pair and the Intel PCS collateral of 2026-09-22 as
 * `collateral fetch` writes it) gives its real verdict with no PCCS reachable; a piece the
 * directory lacks comes from a real PCCS-compatible process, or fails naming the missing file.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/load.js';
import { createCliVerifier } from '../../src/cli/context.js';
import { postJson, startServer, type RunningServer } from '../support/server.js';
import { startPccsProcess, type PccsProcess } from '../support/pccs-process.js';
import { recordedBundle2026 } from '../support/pccs-server.js';
import { VECTORS, vectorPath } from '../support/paths.js';

const EXAMPLE = resolve('examples/offline-sgx');
const exampleConfig = JSON.parse(readFileSync(join(EXAMPLE, 'config.json'), 'utf8')) as Record<string, unknown>;
const sgxRequest = JSON.parse(readFileSync(join(EXAMPLE, 'sgx-request.json'), 'utf8')) as { userData: string; report: string };
/** Nothing listens on port 9 (discard) here: connections are refused at once. */
const NO_PCCS = 'http://127.0.0.1:9/sgx/certification/v4/';
const local = { ...exampleConfig, port: 0, host: '127.0.0.1' };

let tmp: string;
/** A real PCCS-compatible process serving the same recorded Intel collateral. */
let pccs: PccsProcess;
beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'offline-collateral-'));
  pccs = await startPccsProcess(recordedBundle2026(VECTORS));
});
afterAll(async () => {
  await pccs?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** A copy of the shipped collateral directory without `drop` (relative paths). */
function dirWithout(name: string, ...drop: string[]): string {
  const d = join(tmp, name);
  cpSync(join(EXAMPLE, 'collateral'), d, { recursive: true });
  for (const f of drop) rmSync(join(d, f));
  return d;
}

async function decodeSgx(srv: RunningServer): Promise<any> {
  const r = await postJson(`${srv.url}/decodeReport`, sgxRequest);
  expect(r.status).toBe(200);
  return r.body;
}

async function withServer<T>(raw: Record<string, unknown>, fn: (s: RunningServer) => Promise<T>, baseDir = EXAMPLE): Promise<T> {
  const srv = await startServer(raw, baseDir);
  try {
    return await fn(srv);
  } finally {
    await srv.close();
  }
}

describe('the shipped example directory', () => {
  it('holds the Intel PCS collateral of 2026-09-22 byte for byte', () => {
    const pcs = (f: string) => readFileSync(vectorPath('sgx/intel-pcs-2026-09-22', f), 'utf8').trim();
    const c = (f: string) => readFileSync(join(EXAMPLE, 'collateral', f));
    expect(c('tcb/00906ed50000.json').toString('utf8')).toBe(pcs('tcb_info_00906ed50000.json'));
    expect(c('qe_identity.json').toString('utf8')).toBe(pcs('qe_identity.json'));
    expect(c('pckcrl/processor.der').toString('hex')).toBe(pcs('pck_crl_processor.der.hex').toLowerCase());
    expect(c('rootcacrl.der').toString('hex')).toBe(pcs('root_ca_crl.der.hex').toLowerCase());
    expect(c('tcb/00906ed50000.issuer-chain.pem').toString('utf8')).toBe(readFileSync(vectorPath('sgx/intel-pcs-2026-09-22/tcb_signing_issuer_chain.pem'), 'utf8'));
  });

  it('config: collateralDir is resolved against the config file directory', () => {
    expect(resolveConfig(local, EXAMPLE).collateralDir).toBe(join(EXAMPLE, 'collateral'));
    expect(resolveConfig({ ...local, collateralDir: '/abs/dir' }, EXAMPLE).collateralDir).toBe('/abs/dir');
    expect(resolveConfig({ ...local, collateralDir: undefined }, EXAMPLE).collateralDir).toBeUndefined();
    expect(() => resolveConfig({ ...local, collateralDir: '' }, EXAMPLE)).toThrow(/collateralDir = "": expected a non-empty string/);
  });
});

describe('POST /decodeReport with collateralDir and no PCCS reachable', () => {
  for (const workers of [1, 0]) {
    it(`the README SGX pair gets its real verdict: OutOfDate, tcbStatus 1 (workers: ${workers})`, async () => {
      const body = await withServer({ ...local, workers, pccsUrl: NO_PCCS }, decodeSgx);
      expect(body).toMatchObject({ reportType: 'typeA', reportValid: false, outcome: 'invalid', errorCode: 'TYPEA_TCB_STATUS_REJECTED' });
      expect(body.decodedReport).toMatchObject({ tcbStatus: 1, tcbStatusName: 'OutOfDate' });
      expect(body.decodedReport.advisoryIds).toContain('INTEL-SA-01153');
      expect(body.errorString).toMatch(/OutOfDate/);
    });
  }

  it('accepting OutOfDate makes the same pair valid (the whole chain verified offline)', async () => {
    const body = await withServer({ ...local, pccsUrl: NO_PCCS, acceptedTcbStatuses: ['UpToDate', 'SWHardeningNeeded', 'OutOfDate'] }, decodeSgx);
    expect(body.errorString).toBeUndefined();
    expect(body).toMatchObject({ reportValid: true, outcome: 'valid', decodedReport: { tcbStatus: 1 } });
  });

  it('without collateralDir the same server answers PCCS_UNAVAILABLE: unverifiable, not invalid', async () => {
    const body = await withServer({ ...local, collateralDir: undefined, pccsUrl: NO_PCCS }, decodeSgx);
    expect(body).toMatchObject({ reportValid: false, outcome: 'unverifiable', errorCode: 'PCCS_UNAVAILABLE' });
  });

  it('collateral outside its validity at the verification time is unverifiable, not invalid', async () => {
    // The directory's TCB info was good until 2026-10-22, its Root CA CRL until 2027-02-26.
    const tcb = await withServer({ ...local, pccsUrl: NO_PCCS, verificationTime: '2026-11-15T00:00:00Z' }, decodeSgx);
    expect(tcb).toMatchObject({ reportValid: false, outcome: 'unverifiable', errorCode: 'TYPEA_TCB_INFO_EXPIRED' });
    const crl = await withServer({ ...local, pccsUrl: NO_PCCS, verificationTime: '2027-12-01T00:00:00Z' }, decodeSgx);
    expect(crl).toMatchObject({ reportValid: false, outcome: 'unverifiable', errorCode: 'CRL_EXPIRED' });
  });

  it('a missing piece with no PCCS reachable fails naming the missing file', async () => {
    const dir = dirWithout('no-qe', 'qe_identity.json');
    for (const workers of [0, 1]) {
      const body = await withServer({ ...local, workers, collateralDir: dir, pccsUrl: NO_PCCS }, decodeSgx);
      expect(body).toMatchObject({ reportValid: false, outcome: 'unverifiable', errorCode: 'TYPEA_COLLATERAL_UNAVAILABLE' });
      expect(body.errorString).toMatch(/^typeA: collateralDir \S+no-qe lacks qe_identity\.json, and the PCCS at http:\/\/127\.0\.0\.1:9\/sgx\/certification\/v4\/ could not supply it \(PCCS_UNAVAILABLE: /);
    }
    const noTcb = dirWithout('no-tcb', 'tcb/00906ed50000.json');
    const body = await withServer({ ...local, collateralDir: noTcb, pccsUrl: NO_PCCS }, decodeSgx);
    expect(body).toMatchObject({ errorCode: 'TYPEA_COLLATERAL_UNAVAILABLE', errorString: expect.stringMatching(/lacks tcb\/00906ed50000\.json \(no TCB info for FMSPC 00906ed50000;/) });
  });

  it('a directory that is not a collateral directory stops the startup with COLLATERAL_DIR_INVALID', async () => {
    await expect(startServer({ ...local, collateralDir: 'no-such-dir' }, tmp)).rejects.toMatchObject({
      code: 'COLLATERAL_DIR_INVALID',
      message: expect.stringMatching(/^collateralDir \S+no-such-dir: no manifest\.json \(write the directory with "oracle-verifier collateral fetch"\)/),
    });
  });
});

describe('a missing piece falls back to a reachable PCCS', () => {
  it('only the missing piece is requested, and the verdict is the real one', async () => {
    const dir = dirWithout('fallback', 'pckcrl/processor.der', 'pckcrl/processor.issuer-chain.pem');
    await withServer({ ...local, workers: 1, collateralDir: dir, pccsUrl: pccs.url }, async (srv) => {
      // The server's one probe at startup (GET rootcacrl) counts as a PCCS request too.
      await srv.pccsProbe;
      const body = await decodeSgx(srv);
      expect(body).toMatchObject({ reportValid: false, errorCode: 'TYPEA_TCB_STATUS_REJECTED', decodedReport: { tcbStatus: 1 } });
      const metrics = await (await fetch(`${srv.url}/metrics`)).text();
      const requested = metrics.split('\n').filter((l) => l.startsWith('verifier_upstream_requests_total{') && l.includes('service="pccs"'));
      expect(requested).toHaveLength(2);
      expect(requested.find((l) => l.includes('route="/pckcrl"'))).toMatch(/route="\/pckcrl",status="200"\} 1$/);
      expect(requested.find((l) => l.includes('route="/rootcacrl"'))).toMatch(/route="\/rootcacrl",status="200"\} 1$/);
    });
  });
});

describe('the CLI reads the same directories with the same code', () => {
  async function cliVerify(o: Parameters<typeof createCliVerifier>[0]) {
    const v = createCliVerifier({ workers: 0, ...o });
    try {
      return await v.verify(sgxRequest.userData, sgxRequest.report);
    } finally {
      await v.close();
    }
  }

  it("the config's collateralDir verifies offline, as in the server", async () => {
    const out = await cliVerify({ configPath: join(EXAMPLE, 'config.json') });
    expect(out).toMatchObject({ reportValid: false, error: { code: 'TYPEA_TCB_STATUS_REJECTED' }, decodedReport: { tcbStatus: 1 } });
  });

  it('--collateral-dir falls back only to an explicit --pccs (an offline audit stays offline)', async () => {
    const dir = dirWithout('cli-no-qe', 'qe_identity.json');
    const config = join(tmp, 'cli-config.json');
    writeFileSync(config, JSON.stringify({ ...exampleConfig, collateralDir: undefined, pccsUrl: pccs.url }));
    const offline = await cliVerify({ configPath: config, collateralDir: dir });
    expect(offline).toMatchObject({ reportValid: false, error: { code: 'TYPEA_COLLATERAL_UNAVAILABLE' } });
    expect(offline.error!.message).toMatch(/^typeA: --collateral-dir \S+cli-no-qe lacks qe_identity\.json, and no PCCS is configured to fall back to$/);
    const withPccs = await cliVerify({ configPath: config, collateralDir: dir, pccsUrl: pccs.url });
    expect(withPccs).toMatchObject({ reportValid: false, error: { code: 'TYPEA_TCB_STATUS_REJECTED' }, decodedReport: { tcbStatus: 1 } });
  });
});
