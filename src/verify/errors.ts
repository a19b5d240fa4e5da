import type { DomainCode } from '../errorCodes.js';
export type VerifyCode = DomainCode<'verify'>;

/** Codes of POST /verify's checks of one notarizer response (src/verify/attestationResponse.ts). */
export type ResponseCode = DomainCode<'response'>;
