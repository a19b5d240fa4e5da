/** Closed list of the codes raised by the binding-hash module (struct → fields → Poseidon8). */
export const HashCodes = [
  'HASH_INPUT_EMPTY',
  'HASH_INPUT_LENGTH',
  'HASH_INPUT_TOO_LARGE',
  'HASH_FIELD_OUT_OF_RANGE',
  'HASH_STRUCT_MEMBER',
  'HASH_U128_OUT_OF_RANGE',
] as const;
export type HashCode = (typeof HashCodes)[number];
