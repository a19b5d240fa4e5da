/** Codes of the era detection of userData (src/encoding/eras). */
export const EraCodes = [
  /** The userData fits no known era (chunk count, or reserved meta-header bytes). */
  'USERDATA_ERA_UNKNOWN',
  /** No request: the (first) chunk is all zero. */
  'USERDATA_NO_REQUEST',
  /** A non-zero chunk follows an all-zero chunk in one-request-per-chunk data. */
  'USERDATA_CHUNK_AFTER_EMPTY',
] as const;
export type EraCode = (typeof EraCodes)[number];
