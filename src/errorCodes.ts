/**
 * The closed set of stable error codes the verifier reports (`errorCode` in responses, the `code`
 * label of failure metrics). Each domain declares its own list next to its code; this module
 * gathers them so that clients and the tests can see the whole set.
 */
import { ConfigCodes } from './config/errors.js';
import { StartupCodes } from './startup/errors.js';
import { LedgerCodes } from './ledger/errors.js';
import { ProofDataCodes, ProofDataEncodeCodes } from './encoding/errors.js';
import { EraCodes } from './encoding/eras/errors.js';
import { HashCodes } from './hash/errors.js';
import { CborCodes } from './attestation/cbor.js';
import { DerCodes } from './attestation/x509/der.js';
import { X509Codes } from './attestation/x509/errors.js';
import { CrlCodes } from './attestation/x509/crl.js';
import { QuoteCodes, TypeACodes } from './attestation/typeA/errors.js';
import { TypeBCodes } from './attestation/typeB/errors.js';
import { CollateralDirCodes, PccsCodes } from './collateral/errors.js';
import { PoolCodes } from './pool/errors.js';
import { ResponseCodes, VerifyCodes } from './verify/errors.js';
import { HttpCodes } from './server/httpErrors.js';
import { CliCodes } from './cli/errors.js';
import { LedgerNodeCodes } from './ledger-node/errors.js';
import { LedgerRecordCodes } from './ledger-records/errors.js';
import { LedgerWatchCodes } from './ledger-watch/errors.js';
import { StoreCodes } from './store/errors.js';

export const ERROR_CODES_BY_DOMAIN = {
  config: ConfigCodes,
  startup: StartupCodes,
  ledger: LedgerCodes,
  proofData: ProofDataCodes,
  proofDataEncode: ProofDataEncodeCodes,
  era: EraCodes,
  hash: HashCodes,
  cbor: CborCodes,
  der: DerCodes,
  x509: X509Codes,
  crl: CrlCodes,
  quote: QuoteCodes,
  typeA: TypeACodes,
  typeB: TypeBCodes,
  pccs: PccsCodes,
  collateralDir: CollateralDirCodes,
  pool: PoolCodes,
  verify: VerifyCodes,
  response: ResponseCodes,
  http: HttpCodes,
  cli: CliCodes,
  ledgerNode: LedgerNodeCodes,
  ledgerRecords: LedgerRecordCodes,
  ledgerWatch: LedgerWatchCodes,
  store: StoreCodes,
} as const;

export type ErrorCode = (typeof ERROR_CODES_BY_DOMAIN)[keyof typeof ERROR_CODES_BY_DOMAIN][number];

export const ERROR_CODES: readonly ErrorCode[] = Object.values(ERROR_CODES_BY_DOMAIN).flat() as ErrorCode[];
