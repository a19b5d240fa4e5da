import { codesOf, type DomainCode } from '../errorCodes.js';
export const VerifyCodes = codesOf('verify');
export type VerifyCode = DomainCode<'verify'>;

/** Codes of POST /verify's checks of one notarizer response (src/verify/attestationResponse.ts). */
export const ResponseCodes = codesOf('response');
export type ResponseCode = DomainCode<'response'>;
