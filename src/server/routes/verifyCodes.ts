/** Request-level codes of POST /verify (400s); per-report codes are ResponseCodes in src/verify/errors.ts. */
export const VerifyRouteCodes = ['HTTP_NO_REPORTS', 'HTTP_TOO_MANY_REPORTS'] as const;
export type VerifyRouteCode = (typeof VerifyRouteCodes)[number];
