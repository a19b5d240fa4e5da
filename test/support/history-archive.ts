/**
 * A collateral archive under the typeA test PKI with two TCB evaluations (issue 49): evaluation 19,
 * in force from T0 − 200 days, rates the minted PCK's level UpToDate; evaluation 20, in force from
 * T0 − 20 days (update=early), rates it OutOfDate (INTEL-SA-00615). One signed list names both.
 * An update in a block at T0 − 100 days is valid then and not accepted today; one at T0 is invalid.
 */
import { CollateralArchive, type ArchivedDocument } from '../../src/collateral/archive.js';
import { qeIdentityBody, signBody, tcbInfoBody, type TestPki } from './typea-pki.js';
import type { PccsBundle } from './pccs-server.js';

export const DAY = 86_400_000;

/** The wire bodies (PCS JSON) of the two evaluations and the list, and the PEM chain that signs them. */
export function historyWires(pki: TestPki): { chain: string; wires: Record<'tcb19' | 'tcb20' | 'qe19' | 'qe20' | 'list', string>; crls: ArchivedDocument[] } {
  const T0 = pki.time;
  const wire = (key: string, raw: string) => `{"${key}":${raw},"signature":"${signBody(raw, pki.tcbSigning.key)}"}`;
  const d = (ms: number) => new Date(ms).toISOString().replace('.000', '');
  const levels = (status: string) => [{ components: [21, 21, 2, 4, 1, 128, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0], pceSvn: 13, status, ...(status === 'UpToDate' ? {} : { advisoryIDs: ['INTEL-SA-00615'] }) }];
  const as19 = (s: string) => s.replace('"tcbEvaluationDataNumber":20', '"tcbEvaluationDataNumber":19');
  const tcb19 = as19(tcbInfoBody({ fmspc: '00906ED50000', pceId: '0000', issueDate: T0 - 150 * DAY, nextUpdate: T0 - 120 * DAY, levels: levels('UpToDate') }));
  const tcb20 = tcbInfoBody({ fmspc: '00906ED50000', pceId: '0000', issueDate: T0 - 10 * DAY, nextUpdate: T0 + 20 * DAY, levels: levels('OutOfDate') });
  const qe19 = as19(qeIdentityBody({ issueDate: T0 - 150 * DAY, nextUpdate: T0 - 120 * DAY, levels: [{ isvsvn: 8, status: 'UpToDate' }] }));
  const qe20 = qeIdentityBody({ issueDate: T0 - 10 * DAY, nextUpdate: T0 + 20 * DAY, levels: [{ isvsvn: 8, status: 'UpToDate' }] });
  const list = `{"id":"SGX","version":1,"issueDate":"${d(T0 + DAY)}","nextUpdate":"${d(T0 + 31 * DAY)}","tcbEvalNumbers":[{"tcbEvaluationDataNumber":20,"tcbRecoveryEventDate":"${d(T0 - 20 * DAY)}","tcbDate":"${d(T0 - 19 * DAY)}"},{"tcbEvaluationDataNumber":19,"tcbRecoveryEventDate":"${d(T0 - 200 * DAY)}","tcbDate":"${d(T0 - 199 * DAY)}"}]}`;
  return {
    chain: pki.tcbSigning.pem + pki.root.pem,
    wires: { tcb19: wire('tcbInfo', tcb19), tcb20: wire('tcbInfo', tcb20), qe19: wire('enclaveIdentity', qe19), qe20: wire('enclaveIdentity', qe20), list: wire('tcbEvaluationDataNumbers', list) },
    crls: [
      { kind: 'pckCrl', body: Buffer.from(pki.collateral.pckCrl).toString('hex'), issuerChain: pki.collateral.pckCrlIssuerChain },
      { kind: 'rootCaCrl', body: Buffer.from(pki.collateral.rootCaCrl).toString('hex'), issuerChain: '' },
    ],
  };
}

/** The archive at `dir` (created), holding historyWires' documents. */
export function buildHistoryArchive(dir: string, pki: TestPki): string {
  const { chain, wires, crls } = historyWires(pki);
  const archive = CollateralArchive.open(dir, pki.root.cert, { create: true });
  const kinds = { tcb19: 'tcbInfo', tcb20: 'tcbInfo', qe19: 'qeIdentity', qe20: 'qeIdentity', list: 'tcbEvaluations' } as const;
  for (const [k, body] of Object.entries(wires) as [keyof typeof kinds, string][]) archive.add({ kind: kinds[k], body, issuerChain: chain });
  for (const c of crls) archive.add(c);
  return dir;
}

/** historyWires' two evaluations and list as a PCCS serves them by number (PccsBundle.evaluations). */
export function historyEvaluations(pki: TestPki, o: { gone?: number[] } = {}): NonNullable<PccsBundle['evaluations']> {
  const { chain, wires } = historyWires(pki);
  const b = (body: string) => ({ body, issuerChain: chain });
  return {
    list: b(wires.list),
    tcbInfo: { 19: { '00906ed50000': b(wires.tcb19) }, 20: { '00906ed50000': b(wires.tcb20) } },
    qeIdentity: { 19: b(wires.qe19), 20: b(wires.qe20) },
    ...(o.gone ? { gone: o.gone } : {}),
  };
}
