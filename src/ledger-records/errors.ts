/** Codes of the ledger items and records (src/ledger-records): a followed transition that cannot be read. */
export const LedgerRecordCodes = ['LEDGER_TRANSITION_MALFORMED'] as const;
export type LedgerRecordCode = (typeof LedgerRecordCodes)[number];
