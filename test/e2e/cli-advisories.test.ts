/**
 * `oracle-verifier verify` with the config's acceptedAdvisories, on a minted quote whose platform
 * TCB level is SWHardeningNeeded with advisories INTEL-SA-00615 and INTEL-SA-00999 (collateral from
 * a PCCS-compatible server), in process and through the worker pool.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMintedCliEnv, type MintedCliEnv } from '../support/minted-cli.js';
import { makeUserData, openEnclaveReport, reportText } from '../support/ledger-reports.js';
import { verifyCommand } from '../../src/cli/verify.js';

const MRENCLAVE = new Uint8Array(32).fill(0x5a);
const SW = [17, 17, 2, 4, 1, 128, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0];
let dir: string;
let env: MintedCliEnv;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cli-advisories-'));
  env = await startMintedCliEnv(dir, MRENCLAVE, {
    pckTcb: { components: SW, pceSvn: 11, fmspc: '00906ED50000', pceId: '0000' },
    levels: [
      { components: [21, 21, 2, 4, 1, 128, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0], pceSvn: 13, status: 'UpToDate' },
      { components: SW, pceSvn: 11, status: 'SWHardeningNeeded', advisoryIDs: ['INTEL-SA-00615', 'INTEL-SA-00999'] },
    ],
  });
  const ud = makeUserData();
  const rd = new Uint8Array(64);
  rd.set(ud.hash);
  writeFileSync(join(dir, 'ud.txt'), ud.text);
  writeFileSync(join(dir, 'report.txt'), reportText(openEnclaveReport(env.typeA.quote({ reportData: rd, mrEnclave: MRENCLAVE }))));
});

afterAll(async () => {
  await env?.pccs.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function verify(extraConfig: Record<string, unknown>, workers: string): Promise<{ code: number; body: any }> {
  const file = join(dir, `config-${Object.keys(extraConfig).join('-') || 'plain'}-${workers}.json`);
  writeFileSync(file, JSON.stringify({ ...env.config, acceptedTcbStatuses: ['UpToDate', 'SWHardeningNeeded'], ...extraConfig }));
  let stdout = '';
  const code = await verifyCommand(['--user-data', join(dir, 'ud.txt'), '--report', join(dir, 'report.txt'), '--config', file, '--at', env.at, '--workers', workers, '--json'], {
    stdout: (s) => void (stdout += s),
    stderr: () => undefined,
  });
  return { code, body: JSON.parse(stdout) };
}

describe('verify with acceptedAdvisories', () => {
  it('without the option the status alone decides (valid)', async () => {
    const r = await verify({}, '0');
    expect(r.body).toMatchObject({ reportValid: true, decodedReport: { tcbStatus: 5, advisoryIds: ['INTEL-SA-00615', 'INTEL-SA-00999'] } });
    expect(r.code).toBe(0);
  });

  for (const workers of ['0', '1']) {
    it(`refuses the level for the advisory not listed (workers ${workers})`, async () => {
      const r = await verify({ acceptedAdvisories: ['INTEL-SA-00615'] }, workers);
      expect(r.body).toMatchObject({ reportValid: false, errorCode: 'TYPEA_TCB_ADVISORY_REJECTED' });
      expect(r.body.errorString).toMatch(/advisory INTEL-SA-00999 not in acceptedAdvisories/);
      expect(r.code).toBe(1);
    });
  }

  it('accepts it when every advisory of the level is listed', async () => {
    const r = await verify({ acceptedAdvisories: ['INTEL-SA-00999', 'INTEL-SA-00615'] }, '1');
    expect(r.body).toMatchObject({ reportValid: true, decodedReport: { tcbStatus: 5 } });
    expect(r.code).toBe(0);
  });
});
