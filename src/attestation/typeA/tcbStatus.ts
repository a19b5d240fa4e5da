/**
 * TCB status vocabulary, the platform + QE combination rule (spec §11) and EGo's integer
 * numbering (spec §13).
 */

export const PLATFORM_TCB_STATUSES = [
  'UpToDate',
  'SWHardeningNeeded',
  'ConfigurationNeeded',
  'ConfigurationAndSWHardeningNeeded',
  'OutOfDate',
  'OutOfDateConfigurationNeeded',
  'Revoked',
] as const;
export type TcbStatus = (typeof PLATFORM_TCB_STATUSES)[number];

export const QE_TCB_STATUSES = ['UpToDate', 'OutOfDate', 'Revoked'] as const;
export type QeTcbStatus = (typeof QE_TCB_STATUSES)[number];

/** EGo / Open Enclave `tcbstatus.Status` numbering. */
export const EGO_TCB_STATUS: Readonly<Record<TcbStatus | 'Unknown', number>> = {
  UpToDate: 0,
  OutOfDate: 1,
  Revoked: 2,
  ConfigurationNeeded: 3,
  OutOfDateConfigurationNeeded: 4,
  SWHardeningNeeded: 5,
  ConfigurationAndSWHardeningNeeded: 6,
  Unknown: 7,
};

export function egoTcbStatus(s: TcbStatus): number {
  return EGO_TCB_STATUS[s];
}

/**
 * Intel's rule: QE Revoked → Revoked; QE OutOfDate turns platform UpToDate/SWHardeningNeeded into
 * OutOfDate and ConfigurationNeeded/ConfigurationAndSWHardeningNeeded into
 * OutOfDateConfigurationNeeded; otherwise the platform status stands.
 */
export function combineTcbStatus(platform: TcbStatus, qe: QeTcbStatus): TcbStatus {
  if (qe === 'Revoked') return 'Revoked';
  if (qe === 'OutOfDate') {
    switch (platform) {
      case 'UpToDate':
      case 'SWHardeningNeeded':
        return 'OutOfDate';
      case 'ConfigurationNeeded':
      case 'ConfigurationAndSWHardeningNeeded':
        return 'OutOfDateConfigurationNeeded';
      default:
        return platform;
    }
  }
  return platform;
}
