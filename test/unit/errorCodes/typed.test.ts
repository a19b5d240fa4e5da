/**
 * The error set is closed at compile time: `npm run typecheck` (which covers test/) fails when a
 * `@ts-expect-error` below stops being an error, i.e. when an undeclared code would be accepted.
 * At run time the codes that only the HTTP front end answers are in the declared set.
 */
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode } from '../../../src/errorCodes.js';
import { VerifierError } from '../../../src/errors.js';
import type { FailureInfo } from '../../../src/verify/types.js';
import type { HttpFailure } from '../../../src/server/httpErrors.js';
import { failureBody } from '../../../src/server/errorResponses.js';

describe('closed error set', () => {
  it('rejects an undeclared code in every place a code is answered (compile time)', () => {
    // @ts-expect-error an undeclared code is not an ErrorCode
    const err = new VerifierError('NOT_A_DECLARED_CODE', 'x');
    // @ts-expect-error FailureInfo.code is an ErrorCode
    const info: FailureInfo = { code: 'NOT_A_DECLARED_CODE', message: 'x' };
    // @ts-expect-error HttpFailure.code is an ErrorCode
    const http: HttpFailure = { status: 400, code: 'NOT_A_DECLARED_CODE', message: 'x' };
    // @ts-expect-error failureBody takes an ErrorCode
    const body = failureBody('/decode', 'NOT_A_DECLARED_CODE', 'x');
    const declared: ErrorCode[] = [err.code, info.code, http.code, body.errorCode as ErrorCode];
    expect(declared.filter((c) => (ERROR_CODES as readonly string[]).includes(c))).toEqual([]);
  });

  it.each(['HTTP_NO_REPORTS', 'HTTP_TOO_MANY_REPORTS', 'RESPONSE_FIELDS_MISMATCH', 'REPORT_MISMATCH', 'RESPONSE_FIELDS_MISSING', 'HTTP_NOT_FOUND', 'INTERNAL_ERROR'])(
    '/verify and the HTTP front end answer %s, a declared code',
    (code) => {
      expect(ERROR_CODES).toContain(code);
    },
  );
});
