/** typeA (Intel SGX DCAP quote v3) verifier: public API. */
export { TYPEA_PREFIX, cutTypeAReport, parseQuote, type Quote, type QuoteHeader, type ReportBody } from './quote.js';
export { collateralFromDcapQvlJson, splitSignedBody, type Collateral } from './collateral.js';
export { pckExtension, parsePckExtensionValue, SGX_EXTENSION_OID, type PckExtension, type SgxType } from './pckExtension.js';
export { parseTcbInfo, matchTcbLevel, type TcbInfo, type TcbLevel } from './tcbInfo.js';
export { parseQeIdentity, checkQeReport, type QeIdentity, type QeTcbLevel } from './qeIdentity.js';
export { combineTcbStatus, egoTcbStatus, EGO_TCB_STATUS, type TcbStatus, type QeTcbStatus } from './tcbStatus.js';
export {
  verifyCollateral,
  verifyQuote,
  verifyQuoteSignatures,
  verifyQuoteWithCollateral,
  checkCollateralTime,
  TYPEA_QUOTE_CHECKS,
  TYPEA_COLLATERAL_CHECKS,
  type SignedQuote,
  type VerifiedCollateral,
  type TypeAVerdict,
  type VerifyOptions,
  type QuoteVerifyOptions,
} from './verify.js';
export type { QuoteCode, TypeACode } from './errors.js';
