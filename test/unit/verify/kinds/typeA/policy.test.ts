/** The TCB rule of the oracle policy: accepted statuses and the optional advisory allow-list. */
import { describe, expect, it } from 'vitest';
import { checkDebugEnclave, checkTcbStatus, type TcbVerdict } from '../../../../../src/verify/kinds/typeA/policy.js';

function codeOf(f: () => void): string | undefined {
  try {
    f();
  } catch (e: any) {
    return `${e.code}: ${e.message}`;
  }
  return undefined;
}

const sw = (advisoryIds: string[]): TcbVerdict => ({ tcbStatus: 'SWHardeningNeeded', tcbStatusCode: 5, advisoryIds });
const statuses = ['UpToDate', 'SWHardeningNeeded'] as const;

describe('checkTcbStatus', () => {
  it('without acceptedAdvisories: the status decides, advisories do not matter (unchanged behaviour)', () => {
    expect(codeOf(() => checkTcbStatus(sw(['INTEL-SA-00615', 'INTEL-SA-00999']), { acceptedTcbStatuses: statuses }))).toBeUndefined();
    expect(codeOf(() => checkTcbStatus({ tcbStatus: 'OutOfDate', tcbStatusCode: 1, advisoryIds: [] }, { acceptedTcbStatuses: statuses }))).toMatch(
      /^TYPEA_TCB_STATUS_REJECTED: typeA: TCB status OutOfDate \(1\) is not accepted/,
    );
  });

  it('with acceptedAdvisories: a non-UpToDate status needs every advisory of its level listed', () => {
    const policy = { acceptedTcbStatuses: statuses, acceptedAdvisories: ['INTEL-SA-00615'] };
    expect(codeOf(() => checkTcbStatus(sw(['INTEL-SA-00615']), policy))).toBeUndefined();
    expect(codeOf(() => checkTcbStatus(sw([]), policy))).toBeUndefined();
    const refused = codeOf(() => checkTcbStatus(sw(['INTEL-SA-00615', 'INTEL-SA-00999']), policy));
    expect(refused).toMatch(/^TYPEA_TCB_ADVISORY_REJECTED: typeA: TCB status SWHardeningNeeded \(5\) carries advisory INTEL-SA-00999 not in acceptedAdvisories/);
    expect(refused).not.toMatch(/carries advisory INTEL-SA-00615/);
    // An empty list accepts only advisory-free levels.
    expect(codeOf(() => checkTcbStatus(sw(['INTEL-SA-00615']), { acceptedTcbStatuses: statuses, acceptedAdvisories: [] }))).toMatch(/^TYPEA_TCB_ADVISORY_REJECTED: .*accepted: none/);
  });

  it('the status check comes first: a listed advisory does not make an unaccepted status acceptable', () => {
    expect(codeOf(() => checkTcbStatus(sw(['INTEL-SA-00615']), { acceptedTcbStatuses: ['UpToDate'], acceptedAdvisories: ['INTEL-SA-00615'] }))).toMatch(/^TYPEA_TCB_STATUS_REJECTED/);
  });

  it('UpToDate is unaffected by the advisory list', () => {
    const v: TcbVerdict = { tcbStatus: 'UpToDate', tcbStatusCode: 0, advisoryIds: ['INTEL-SA-00999'] };
    expect(codeOf(() => checkTcbStatus(v, { acceptedTcbStatuses: statuses, acceptedAdvisories: ['INTEL-SA-00615'] }))).toBeUndefined();
  });
});

describe('checkDebugEnclave', () => {
  it('refuses a debug enclave unless allowed', () => {
    expect(codeOf(() => checkDebugEnclave(true, { allowDebugEnclaves: false }))).toMatch(/^TYPEA_DEBUG_ENCLAVE/);
    expect(codeOf(() => checkDebugEnclave(true, { allowDebugEnclaves: true }))).toBeUndefined();
    expect(codeOf(() => checkDebugEnclave(false, { allowDebugEnclaves: false }))).toBeUndefined();
  });
});
