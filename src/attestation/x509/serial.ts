/**
 * CertificateSerialNumber (RFC 5280 §4.1.2.2): a positive INTEGER of at most 20 octets, DER
 * minimal. Certificates and CRL entries read it with this one function, so that a serial has one
 * lookup key in both: lowercase hex of the content without the 00 sign octet. A negative serial
 * is refused with X509_NEGATIVE_SERIAL: its two's-complement octets would give it the key of a
 * positive serial (−255 is ff01, the key of 65281 = 00ff01), so a revocation could be dodged or
 * misapplied.
 */
import { VerifierError } from '../../errors.js';
import { TAG, expectTag, value, type Tlv } from './der.js';
import type { X509Code } from './errors.js';

/** Lookup key of a serial number; `field` names the INTEGER in messages. */
export function serialKey(t: Tlv, field: string): string {
  expectTag(t, TAG.INTEGER, field);
  const v = value(t);
  if (v.length === 0) throw new Error(`empty ${field}`);
  if (v[0]! & 0x80) {
    throw new VerifierError<X509Code>('X509_NEGATIVE_SERIAL', `${field} is negative (two's complement ${Buffer.from(v).toString('hex')}); serial numbers must be positive`);
  }
  if (v.length > 1 && v[0] === 0 && !(v[1]! & 0x80)) throw new Error(`non-minimal ${field}`);
  const body = v[0] === 0 && v.length > 1 ? v.subarray(1) : v;
  if (body.length > 20) throw new Error(`${field} of ${body.length} octets (max 20)`);
  return Buffer.from(body).toString('hex');
}
