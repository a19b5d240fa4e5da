/** Wire types of the notarization backends and the verification backend's `/verify`. */

export type RequestMethod = 'GET' | 'POST';
export type ResponseFormat = 'json' | 'html';
export type HtmlResultType = 'element' | 'value';
export type EncodingValue = 'string' | 'int' | 'float';

export interface EncodingOptions {
  value: EncodingValue;
  /** Fraction digits kept for `float` (required there, 0–12); ignored otherwise. */
  precision?: number;
}

/** What a client asks a notarizer to attest (service-spec.md "Attestation request"). */
export interface AttestationRequest {
  /** Target without scheme (HTTPS is assumed), e.g. `api.example.com/v1/price?x=1`. */
  url: string;
  requestMethod: RequestMethod;
  /** JSON key path (`a.b.[0]`) for json, XPath for html; empty/absent = the whole response. */
  selector?: string;
  responseFormat: ResponseFormat;
  htmlResultType?: HtmlResultType;
  requestBody?: string;
  requestContentType?: string;
  requestHeaders?: Record<string, string>;
  encodingOptions: EncodingOptions;
}

/** The ledger-side data of an attestation (`oracleData`). */
export interface OracleData {
  signature?: string;
  /** ReportData struct text: 8 chunks (one request), or 10 chunks with one request per chunk (since 2026-02). */
  userData?: string;
  /** Report struct text (10 chunks). */
  report?: string;
  address?: string;
  encodedPositions?: Record<string, { Pos: number; Len: number }>;
  encodedRequest?: string;
  requestHash?: string;
  timestampedRequestHash?: string;
  reportExtras?: Record<string, string> | null;
}

/** A notarizer's successful answer to `POST /notarize` (plus `enclaveUrl`, added by clients). */
export interface AttestationResponse {
  enclaveUrl?: string;
  /** base64: the SGX remote report (Open Enclave header + quote) or the Nitro COSE document. */
  attestationReport: string;
  reportType: 'sgx' | 'nitro';
  attestationData: string;
  responseBody?: string;
  responseStatusCode: number;
  /** Nitro only: hex nonce of the document. */
  nonce?: string;
  /** Attestation time, Unix SECONDS (notarizer clock). */
  timestamp: number;
  attestationRequest: AttestationRequest;
  oracleData?: OracleData;
}

/** One request of a multi-request attestation (second-generation notarizers, one userData chunk each). */
export interface AttestationResult {
  attestationData: string;
  attestationRequest: AttestationRequest;
  responseStatusCode: number;
  /** Attestation time, Unix SECONDS. */
  timestamp: number;
  /** The oracle's request hash (u128 text, e.g. `123u128`). */
  requestHash?: string;
  responseBody?: string;
}

/**
 * A second-generation multi-request attestation: one report over a 10-chunk userData, the
 * requests in `attestationResults` (in chunk order); the top-level request fields are absent.
 */
export interface MultiAttestationResponse {
  enclaveUrl?: string;
  attestationReport: string;
  reportType: 'sgx' | 'nitro';
  timestamp: number;
  attestationResults: AttestationResult[];
  oracleData?: OracleData;
}

/** Answer of `POST /notarize` with `debugRequest: true`. */
export interface DebugResponse {
  responseBody: string;
  responseStatusCode: number;
  extractedData: string;
}

/** Error body of a notarizer (non-200 answers). */
export interface NotarizerErrorBody {
  errorMessage?: string;
  errorCode?: number;
  errorDetails?: string;
  responseStatusCode?: number;
  responseBody?: string;
  extractedData?: string;
}

/** Body of `POST /verify` on the verification backend (wire-compatible with the JS SDK 2.1.1). */
export interface VerifyRequestBody {
  reports: (AttestationResponse | MultiAttestationResponse)[];
}

export interface VerifyReportError {
  index: number;
  errorCode: string;
  errorMessage: string;
  /** invalid: a check failed on the evidence; unverifiable: the verifier could not decide (e.g. PCCS down), try again later. */
  outcome?: 'invalid' | 'unverifiable';
}

export interface VerifyResponseBody {
  success: boolean;
  /** Indices (into `reports`) of the reports that verified. */
  validReports: number[];
  /** Why reports failed (one line per failed report); absent when all are valid. */
  errorMessage?: string;
  /** Per failed report: index, stable code, reason, outcome (extension; the SDK ignores it). */
  reportErrors?: VerifyReportError[];
  /** Indices of the reports the verifier could not decide (extension; absent when none). */
  unverifiableReports?: number[];
}

export interface NotarizationOptions {
  /** All attesters must return identical `attestationData` (default true). */
  dataShouldMatch?: boolean;
  /** Per-request timeout in milliseconds, for the notarizers and the verifier (default 5000). */
  timeout?: number;
  /**
   * Maximum difference between the attesters' timestamps, in MILLISECONDS. The notarizers'
   * timestamps are Unix seconds; they are converted to milliseconds before comparing, so any
   * value below 1000 requires identical seconds. Undefined: no check.
   */
  maxTimeDeviation?: number;
  /** When given, the request's host must be on this whitelist (checked before sending). */
  whitelist?: readonly string[];
}

export const DEFAULT_TIMEOUT_MS = 5000;
