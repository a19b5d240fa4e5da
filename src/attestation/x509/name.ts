/**
 * X.509 Names (RFC 5280 §4.1.2.4): SEQUENCE OF RelativeDistinguishedName, each a non-empty SET OF
 * AttributeTypeAndValue { OID, directory string }. Checked strictly (certificates and CRLs alike)
 * and rendered as text for messages; the raw DER is what chains compare.
 */
import { children, expectTag, readOid, TAG, value, type Tlv } from './der.js';

const ATTR_NAMES: Record<string, string> = {
  '2.5.4.3': 'CN',
  '2.5.4.5': 'serialNumber',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '1.2.840.113549.1.9.1': 'emailAddress',
  '0.9.2342.19200300.100.1.25': 'DC',
};

const utf8 = new TextDecoder('utf-8', { fatal: true });
const latin1 = new TextDecoder('latin1');

function stringValue(t: Tlv): string {
  const v = value(t);
  switch (t.tag) {
    case TAG.UTF8_STRING:
      return utf8.decode(v);
    case TAG.PRINTABLE_STRING:
    case TAG.IA5_STRING:
    case 0x14: // TeletexString (treated as Latin-1)
      return latin1.decode(v);
    case 0x1e: {
      // BMPString: UCS-2 big-endian
      if (v.length % 2) throw new Error('odd BMPString length');
      let s = '';
      for (let i = 0; i < v.length; i += 2) s += String.fromCharCode((v[i]! << 8) | v[i + 1]!);
      return s;
    }
    case 0x12: // NumericString
    case 0x1a: // VisibleString
      return latin1.decode(v);
    default:
      // Anything else (another universal type, a constructed or context-specific value) is not a
      // directory string: refused, so that a Name is read alike here and by any X.509 library.
      throw new Error(`attribute value of tag 0x${t.tag.toString(16)} is not a directory string`);
  }
}

/** RFC 4514-like rendering in encoding order ("C=US, O=Amazon, CN=…"), for messages only. */
export function nameText(name: Tlv): string {
  expectTag(name, TAG.SEQUENCE, 'Name');
  const parts: string[] = [];
  for (const rdn of children(name)) {
    expectTag(rdn, TAG.SET, 'RelativeDistinguishedName');
    const atvs = children(rdn);
    if (atvs.length === 0) throw new Error('empty RelativeDistinguishedName');
    parts.push(
      atvs
        .map((atv) => {
          const [type, val, ...rest] = children(expectTag(atv, TAG.SEQUENCE, 'AttributeTypeAndValue'));
          if (!type || !val || rest.length) throw new Error('AttributeTypeAndValue must have 2 elements');
          const oid = readOid(type);
          return `${ATTR_NAMES[oid] ?? oid}=${stringValue(val)}`;
        })
        .join('+'),
    );
  }
  return parts.join(', ');
}
