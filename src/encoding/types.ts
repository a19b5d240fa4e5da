/** Attestation data encodings of the oracle (service-spec.md, "Encoding options"). */
export type ValueEncoding = 'string' | 'int' | 'float';

export interface EncodingOptions {
  value: ValueEncoding;
  /** Fractional digits kept for floats (0–12); 0 for string and int. */
  precision: number;
}

export type ResponseFormat = 'json' | 'html';

/**
 * The decoded proof data, exactly as the service's `decodedData`. Key order is the order the
 * server serialises: url, requestMethod, selector (omitted when empty), responseFormat,
 * htmlResultType?, requestBody?, requestContentType?, requestHeaders? (omitted when empty),
 * encodingOptions, attestationData, responseStatusCode, timestamp.
 */
export interface DecodedData {
  url: string;
  requestMethod: string;
  selector?: string;
  responseFormat: ResponseFormat;
  htmlResultType?: string;
  requestBody?: string;
  requestContentType?: string;
  requestHeaders?: Record<string, string>;
  encodingOptions: EncodingOptions;
  attestationData: string;
  responseStatusCode: number;
  timestamp: number;
  /** Only for a request cut to its chunk (10-chunk data): its headers / optional fields did not fit and are left out. */
  truncated?: true;
}

/**
 * One request of a userData (`decodedRequests[i]`): the decodedData fields, then the token id
 * (where the era carries one) and, for one-request-per-chunk data, the oracle's request hashes
 * (u128 decimal text).
 */
export interface DecodedRequest extends DecodedData {
  tokenId?: number;
  requestHash?: string;
  timestampedRequestHash?: string;
}

/** What the notarizer encodes: the attestation request plus its response fields. */
export interface ProofDataInput {
  url: string;
  requestMethod: string;
  selector: string;
  responseFormat: string;
  htmlResultType?: string;
  requestBody?: string;
  requestContentType?: string;
  requestHeaders?: Record<string, string>;
  encodingOptions: { value: string; precision: number };
  /** The extracted value as the notarizer saw it (before preparation). */
  attestationData: string;
  responseStatusCode: number;
  timestamp: number;
}

/** current: since Feb 2025 (padded data); legacy: Dec 2023 – Feb 2025 (raw data length). */
export type EncodingEra = 'current' | 'legacy';
