/**
 * Intel SGX DCAP ECDSA quote v3: the Open Enclave envelope the notarizer emits, and the quote
 * layout itself (spec typeA-sgx-dcap.md §0–§2). Pure parsing: every length is checked against
 * what remains and every byte must be consumed; no cryptography happens here.
 */
import { quoteError } from './errors.js';
import { hex } from '../../bytes.js';

/** Open Enclave legacy remote-report header: version 1, type 2 (SGX remote). */
export const TYPEA_PREFIX: Uint8Array = Uint8Array.of(0x01, 0, 0, 0, 0x02, 0, 0, 0);
const OE_HEADER_LEN = 16;

export const QUOTE_HEADER_LEN = 48;
export const REPORT_BODY_LEN = 384;
/** The ISV signature covers quote bytes [0, SIGNED_LEN): header + ISV report body. */
export const SIGNED_LEN = QUOTE_HEADER_LEN + REPORT_BODY_LEN; // 432
export const INTEL_QE_VENDOR_ID = '939a7233f79c4ca9940a0db3957f0607';
export const ATTESTATION_KEY_TYPE_ECDSA_P256 = 2;
export const CERT_DATA_TYPE_PCK_CHAIN = 5;
export const ATTRIBUTE_DEBUG = 0x02n;

export interface ReportBody {
  /** The 384 raw bytes. */
  readonly raw: Uint8Array;
  readonly cpuSvn: Uint8Array; // 16
  readonly miscSelect: number; // u32 LE
  readonly isvExtProdId: Uint8Array; // 16
  /** ATTRIBUTES, 16 bytes: flags u64 LE then XFRM u64 LE. */
  readonly attributes: Uint8Array;
  readonly attributeFlags: bigint;
  readonly xfrm: bigint;
  readonly debug: boolean;
  readonly mrEnclave: Uint8Array; // 32
  readonly mrSigner: Uint8Array; // 32
  readonly configId: Uint8Array; // 64
  readonly isvProdId: number;
  readonly isvSvn: number;
  readonly configSvn: number;
  readonly isvFamilyId: Uint8Array; // 16
  readonly reportData: Uint8Array; // 64
}

export interface QuoteHeader {
  readonly version: number;
  readonly attestationKeyType: number;
  readonly teeType: number;
  readonly qeSvn: number;
  readonly pceSvn: number;
  readonly qeVendorId: Uint8Array; // 16
  readonly userData: Uint8Array; // 20
}

export interface Quote {
  /** The whole quote (no envelope). */
  readonly raw: Uint8Array;
  readonly header: QuoteHeader;
  readonly isvReport: ReportBody;
  /** Quote bytes [0, 432): what the ISV signature covers. */
  readonly signedBytes: Uint8Array;
  /** ISV report signature, raw r‖s (64). */
  readonly isvSignature: Uint8Array;
  /** Attestation public key, raw x‖y (64). */
  readonly attestationKey: Uint8Array;
  readonly qeReport: ReportBody;
  /** QE report signature, raw r‖s (64). */
  readonly qeReportSignature: Uint8Array;
  readonly qeAuthData: Uint8Array;
  readonly certDataType: number;
  /** The PEM chain text as carried (trailing NUL terminator removed). */
  readonly pckChainPem: string;
  /** The three PEM blocks, leaf first, each "-----BEGIN CERTIFICATE-----…-----END CERTIFICATE-----". */
  readonly pckCertPems: readonly [string, string, string];
  /** The DER of each PEM block, leaf first. */
  readonly pckCertDers: readonly [Uint8Array, Uint8Array, Uint8Array];
}

function u16(b: Uint8Array, o: number): number {
  return b[o]! | (b[o + 1]! << 8);
}

function u32(b: Uint8Array, o: number): number {
  return (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0;
}

function u64(b: Uint8Array, o: number): bigint {
  return BigInt(u32(b, o)) | (BigInt(u32(b, o + 4)) << 32n);
}

function asBytes(input: unknown, what: string): Uint8Array {
  if (!(input instanceof Uint8Array)) quoteError('QUOTE_NOT_BYTES', `${what} is not a byte array`);
  return input;
}

/**
 * Removes the Open Enclave header (`01000000 02000000` + u64 LE length L) and the ledger's zero
 * padding: returns exactly the L quote bytes. Everything after L + 16 must be zero.
 */
export function cutTypeAReport(recovered: Uint8Array): Uint8Array {
  const b = asBytes(recovered, 'typeA report');
  if (b.length < OE_HEADER_LEN) {
    quoteError('QUOTE_BAD_ENVELOPE', `report of ${b.length} bytes is shorter than the ${OE_HEADER_LEN}-byte Open Enclave header`);
  }
  for (let i = 0; i < TYPEA_PREFIX.length; i++) {
    if (b[i] !== TYPEA_PREFIX[i]) {
      quoteError(
        'QUOTE_BAD_ENVELOPE',
        `Open Enclave header is ${hex(b.subarray(0, 8))}, expected ${hex(TYPEA_PREFIX)} (version 1, type 2 = SGX remote report)`,
      );
    }
  }
  const len = u64(b, 8);
  if (len === 0n) quoteError('QUOTE_BAD_ENVELOPE', 'Open Enclave header declares an empty quote');
  if (len > BigInt(b.length - OE_HEADER_LEN)) {
    quoteError('QUOTE_BAD_ENVELOPE', `Open Enclave header declares a ${len}-byte quote but only ${b.length - OE_HEADER_LEN} bytes follow`);
  }
  const end = OE_HEADER_LEN + Number(len);
  for (let i = end; i < b.length; i++) {
    if (b[i] !== 0) {
      quoteError('QUOTE_BAD_ENVELOPE', `non-zero byte 0x${b[i]!.toString(16).padStart(2, '0')} at offset ${i} after the ${len}-byte quote (padding must be zero)`);
    }
  }
  return b.subarray(OE_HEADER_LEN, end);
}

/** Parses a 384-byte SGX report body (offsets of spec §2). */
export function parseReportBody(raw: Uint8Array): ReportBody {
  if (raw.length !== REPORT_BODY_LEN) quoteError('QUOTE_TRUNCATED', `report body of ${raw.length} bytes, expected ${REPORT_BODY_LEN}`);
  const attributes = raw.subarray(48, 64);
  const attributeFlags = u64(raw, 48);
  return {
    raw,
    cpuSvn: raw.subarray(0, 16),
    miscSelect: u32(raw, 16),
    isvExtProdId: raw.subarray(32, 48),
    attributes,
    attributeFlags,
    xfrm: u64(raw, 56),
    debug: (attributeFlags & ATTRIBUTE_DEBUG) !== 0n,
    mrEnclave: raw.subarray(64, 96),
    mrSigner: raw.subarray(128, 160),
    configId: raw.subarray(192, 256),
    isvProdId: u16(raw, 256),
    isvSvn: u16(raw, 258),
    configSvn: u16(raw, 260),
    isvFamilyId: raw.subarray(304, 320),
    reportData: raw.subarray(320, 384),
  };
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\r\n]+?-----END CERTIFICATE-----/g;

function pemToDer(pem: string, index: number): Uint8Array {
  const b64 = pem.slice('-----BEGIN CERTIFICATE-----'.length, -'-----END CERTIFICATE-----'.length).replace(/[\r\n]/g, '');
  const der = Buffer.from(b64, 'base64');
  if (der.length === 0 || der.toString('base64') !== b64) quoteError('QUOTE_BAD_PCK_CHAIN', `PCK certificate ${index} is not canonical base64`);
  return new Uint8Array(der.buffer, der.byteOffset, der.length);
}

function splitPemChain(bytes: Uint8Array): { text: string; certs: [string, string, string] } {
  let n = bytes.length;
  if (n > 0 && bytes[n - 1] === 0) n--; // the QE NUL-terminates the PEM string
  for (let i = 0; i < n; i++) {
    const c = bytes[i]!;
    if (c > 0x7e || (c < 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09)) {
      quoteError('QUOTE_BAD_PCK_CHAIN', `PCK certification data has a non-PEM byte 0x${c.toString(16).padStart(2, '0')} at offset ${i}`);
    }
  }
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, n).toString('latin1');
  const certs = text.match(PEM_CERT) ?? [];
  const rest = text.replace(PEM_CERT, '');
  if (rest.trim() !== '') quoteError('QUOTE_BAD_PCK_CHAIN', 'PCK certification data holds text outside CERTIFICATE blocks');
  if (certs.length !== 3) {
    quoteError('QUOTE_BAD_PCK_CHAIN', `PCK certification data holds ${certs.length} certificate(s), expected 3 (PCK leaf, PCK CA, root)`);
  }
  return { text, certs: certs as [string, string, string] };
}

/** A parsed quote without the DER of its PCK certificates (what finding its collateral needs). */
export type QuoteLayout = Omit<Quote, 'pckCertDers'>;

/**
 * Parses an SGX ECDSA quote v3 (raw, without the Open Enclave header). Refuses TDX (v4/v5 or
 * tee type 0x81), other attestation key types, non-Intel QE vendors, certification data other than
 * type 5 (PEM PCK chain of exactly 3 certificates), truncation and trailing bytes; every PCK
 * certificate must be canonical base64.
 */
export function parseQuote(quote: Uint8Array): Quote {
  const q = parseQuoteLayout(quote);
  const certs = q.pckCertPems;
  return { ...q, pckCertDers: [pemToDer(certs[0], 0), pemToDer(certs[1], 1), pemToDer(certs[2], 2)] };
}

/**
 * `parseQuote` without decoding the PCK certificates: the same checks in the same order except
 * the base64 of each certificate. The pool's HTTP thread uses it to look up a quote's collateral;
 * the verification itself always runs `parseQuote`.
 */
export function parseQuoteLayout(quote: Uint8Array): QuoteLayout {
  const q = asBytes(quote, 'quote');
  let p = 0;
  const take = (n: number, what: string): Uint8Array => {
    if (p + n > q.length) {
      quoteError('QUOTE_TRUNCATED', `${what} needs ${n} bytes at offset ${p} but the quote has ${q.length} bytes`);
    }
    const out = q.subarray(p, p + n);
    p += n;
    return out;
  };

  // Header (48 bytes); version first so that TDX quotes are named as such.
  const hdr = take(QUOTE_HEADER_LEN, 'quote header');
  const version = u16(hdr, 0);
  const attestationKeyType = u16(hdr, 2);
  const teeType = u32(hdr, 4);
  if (version === 4 || version === 5 || teeType === 0x81) {
    quoteError('QUOTE_TDX_NOT_SUPPORTED', `quote version ${version}, tee type 0x${teeType.toString(16)} is a TDX quote; only SGX quote v3 is accepted`);
  }
  if (version !== 3) quoteError('QUOTE_UNSUPPORTED_VERSION', `quote version ${version}, expected 3`);
  if (teeType !== 0) quoteError('QUOTE_UNSUPPORTED_TEE_TYPE', `tee type 0x${teeType.toString(16)}, expected 0 (SGX)`);
  if (attestationKeyType !== ATTESTATION_KEY_TYPE_ECDSA_P256) {
    quoteError('QUOTE_UNSUPPORTED_KEY_TYPE', `attestation key type ${attestationKeyType}, expected 2 (ECDSA-256 with P-256)`);
  }
  const qeVendorId = hdr.subarray(12, 28);
  if (hex(qeVendorId) !== INTEL_QE_VENDOR_ID) {
    quoteError('QUOTE_BAD_QE_VENDOR', `QE vendor id ${hex(qeVendorId)}, expected ${INTEL_QE_VENDOR_ID} (Intel)`);
  }
  const header: QuoteHeader = {
    version,
    attestationKeyType,
    teeType,
    qeSvn: u16(hdr, 8),
    pceSvn: u16(hdr, 10),
    qeVendorId,
    userData: hdr.subarray(28, 48),
  };

  const isvReport = parseReportBody(take(REPORT_BODY_LEN, 'ISV report body'));
  const sigLen = u32(take(4, 'signature data length'), 0);
  if (SIGNED_LEN + 4 + sigLen !== q.length) {
    if (SIGNED_LEN + 4 + sigLen > q.length) {
      quoteError('QUOTE_TRUNCATED', `signature data length ${sigLen} needs a ${SIGNED_LEN + 4 + sigLen}-byte quote, got ${q.length} bytes`);
    }
    quoteError('QUOTE_TRAILING_BYTES', `${q.length - (SIGNED_LEN + 4 + sigLen)} bytes after the ${sigLen}-byte signature data`);
  }

  const isvSignature = take(64, 'ISV report signature');
  const attestationKey = take(64, 'attestation key');
  const qeReport = parseReportBody(take(REPORT_BODY_LEN, 'QE report body'));
  const qeReportSignature = take(64, 'QE report signature');
  const authLen = u16(take(2, 'QE auth data length'), 0);
  const qeAuthData = take(authLen, 'QE auth data');
  const certDataType = u16(take(2, 'certification data type'), 0);
  if (certDataType !== CERT_DATA_TYPE_PCK_CHAIN) {
    quoteError('QUOTE_BAD_CERT_DATA_TYPE', `certification data type ${certDataType}, expected 5 (PEM PCK certificate chain)`);
  }
  const certLen = u32(take(4, 'certification data size'), 0);
  const certData = take(certLen, 'certification data');
  if (p !== q.length) quoteError('QUOTE_TRAILING_BYTES', `${q.length - p} bytes after the certification data`);
  const { text, certs } = splitPemChain(certData);

  return {
    raw: q,
    header,
    isvReport,
    signedBytes: q.subarray(0, SIGNED_LEN),
    isvSignature,
    attestationKey,
    qeReport,
    qeReportSignature,
    qeAuthData,
    certDataType,
    pckChainPem: text,
    pckCertPems: certs,
  };
}
