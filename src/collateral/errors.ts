export const PccsCodes = ['PCCS_UNAVAILABLE', 'PCCS_HTTP_ERROR', 'PCCS_NOT_FOUND', 'PCCS_BAD_RESPONSE'] as const;
export type PccsCode = (typeof PccsCodes)[number];
