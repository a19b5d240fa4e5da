export { parseTypeB, verifyTypeB, verifyTypeBReport, type ParsedTypeB, type TypeBVerifyOptions } from './verify.js';
export { cutTypeBReport, TYPEB_PREFIX } from './detect.js';
export { isDebugDocument, type NitroDocument } from './document.js';
export type { TypeBCode } from './errors.js';
