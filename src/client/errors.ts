/**
 * Typed errors of the notarizer client. Every error has a stable string `code`; failures that
 * the notarization backend reports with a numeric code (notarizer-client-ledger.md §1 "Errors")
 * also carry that number in `errorCode`, and request validation reuses those numbers where the
 * notarizer defines one (e.g. 102 url has a scheme, 114 htmlResultType required, 141 precision too
 * big, 390 target not whitelisted).
 */

export class ClientError extends Error {
  override name = 'ClientError';
  readonly code: string;
  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

/** The attestation request breaks a rule of the attestation request interface. */
export class RequestValidationError extends ClientError {
  override name = 'RequestValidationError';
  /** Dotted path of the offending field (`url`, `encodingOptions.precision`, ...). */
  readonly field: string;
  /** The notarizer's numeric code for the same failure, when it defines one. */
  readonly errorCode: number | undefined;
  constructor(code: string, field: string, message: string, errorCode?: number) {
    super(code, `${field}: ${message}`);
    this.field = field;
    this.errorCode = errorCode;
  }
}

/** A notarizer (attester) answered with an error or could not be reached. */
export class AttestationError extends ClientError {
  override name = 'AttestationError';
  /** Base URL of the notarizer that failed. */
  readonly attester: string;
  /** The notarizer's numeric error code (`errorCode` of its error body), when it sent one. */
  readonly errorCode: number | undefined;
  readonly errorDetails: string | undefined;
  /** Status code of the attestation target, when the notarizer reported one. */
  readonly responseStatusCode: number | undefined;
  /** HTTP status of the notarizer's answer (undefined when no answer arrived). */
  readonly httpStatus: number | undefined;
  constructor(
    code: string,
    attester: string,
    message: string,
    extra: { errorCode?: number; errorDetails?: string; responseStatusCode?: number; httpStatus?: number; cause?: unknown } = {},
  ) {
    super(code, `attester ${attester}: ${message}`, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.attester = attester;
    this.errorCode = extra.errorCode;
    this.errorDetails = extra.errorDetails;
    this.responseStatusCode = extra.responseStatusCode;
    this.httpStatus = extra.httpStatus;
  }
}

/**
 * Client- or verifier-side integrity failure: attesters disagree, timestamps deviate, an
 * attestation does not match the request, or the verification backend rejected a report.
 */
export class AttestationIntegrityError extends ClientError {
  override name = 'AttestationIntegrityError';
  /** The attesters concerned (empty when the failure is not tied to particular attesters). */
  readonly attesters: readonly string[];
  constructor(code: string, message: string, attesters: readonly string[] = [], options?: ErrorOptions) {
    super(code, message, options);
    this.attesters = attesters;
  }
}

/** One or more of the notarizers failed; `failures` says which one and why. */
export class NotarizationError extends ClientError {
  override name = 'NotarizationError';
  readonly failures: readonly AttestationError[];
  constructor(failures: readonly AttestationError[], total: number) {
    super('ATTESTERS_FAILED', `${failures.length} of ${total} attesters failed: ${failures.map((f) => f.message).join('; ')}`);
    this.failures = failures;
  }
}
