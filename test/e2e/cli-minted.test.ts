/**
 * reverify over a ledger-node simulator whose blocks carry oracle updates minted by our test PKIs
 * (fresh typeA quotes with collateral from a PCCS-compatible server, fresh typeB documents), next
 * to a tampered one: every update is reported once with the right verdict.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLedgerNode, type LedgerNode } from '../support/ledger-node.js';
import { LedgerChain, t } from '../support/ledger-chain.js';
import type { PccsServer } from '../support/pccs-server.js';
import { startMintedCliEnv } from '../support/minted-cli.js';
import type { TestPki } from '../support/typea-pki.js';
import type { createTypeBPki } from '../support/typeb-pki.js';

type TypeBPki = ReturnType<typeof createTypeBPki>;
import { makeUserData, openEnclaveReport, reportText } from '../support/ledger-reports.js';
import { reverifyCommand } from '../../src/cli/reverify.js';

const PROGRAM = 'official_oracle.aleo';
const MRENCLAVE = new Uint8Array(32).fill(0x5a);
let dir: string;
let node: LedgerNode;
let pccs: PccsServer;
let config: string;
let at: string;
let a: TestPki;
let b: TypeBPki;
const ids: Record<string, string> = {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cli-minted-'));
  const env = await startMintedCliEnv(dir, MRENCLAVE);
  ({ pccs, configFile: config, at, typeA: a, typeB: b } = env);
  const chain = new LedgerChain(500, 520);
  const ud1 = makeUserData({ attestationData: '100.00000001' });
  const rd = new Uint8Array(64);
  rd.set(ud1.hash);
  ids.sgx = chain.add(503, [t.setDataSgx(PROGRAM, ud1.text, reportText(openEnclaveReport(a.quote({ reportData: rd, mrEnclave: MRENCLAVE }))))]).transactionId;
  const ud2 = makeUserData({ attestationData: '100.00000002' });
  ids.nitro = chain.add(507, [t.setDataNitro(PROGRAM, ud2.text, reportText(b.mintDocument({ userData: ud2.hash })))]).transactionId;
  const ud3 = makeUserData({ attestationData: '100.00000003' });
  ids.tampered = chain.add(511, [t.setDataNitro(PROGRAM, makeUserData({ attestationData: '999.00000000' }).text, reportText(b.mintDocument({ userData: ud3.hash })))]).transactionId;
  node = await startLedgerNode();
  chain.install(node);
});

afterAll(async () => {
  await node?.close();
  await pccs?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('reverify with minted updates', () => {
  it('verifies fresh typeA and typeB updates and flags the tampered one, each exactly once', async () => {
    const out = join(dir, 'out.jsonl');
    let stderr = '';
    const code = await reverifyCommand(
      ['--node', node.url, '--program', 'official_oracle', '--from', '500', '--to', '521', '--config', config, '--at', at, '--workers', '0', '--out', out, '--progress-interval', '0'],
      { stderr: (s) => void (stderr += s), tty: false },
    );
    const records = readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((r) => r.kind !== 'measurement');
    expect(records.map((r) => r.transactionId).sort()).toEqual([ids.sgx, ids.nitro, ids.tampered].sort());
    const by = Object.fromEntries(records.map((r) => [r.transactionId, r]));
    expect(by[ids.sgx!]).toMatchObject({ kind: 'typeA', reportValid: true, tcbStatus: 'UpToDate', blockHeight: 503 });
    expect(by[ids.nitro!]).toMatchObject({ kind: 'typeB', reportValid: true, blockHeight: 507 });
    expect(by[ids.tampered!]).toMatchObject({ kind: 'typeB', reportValid: false, errorCode: 'USERDATA_HASH_MISMATCH' });
    expect(by[ids.sgx!].decodedData.attestationData).toBe('100.00000001');
    expect(code).toBe(1);
    expect(stderr).toMatch(/USERDATA_HASH_MISMATCH/);
  });
});
