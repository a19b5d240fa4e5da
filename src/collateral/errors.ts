export const PccsCodes = ['PCCS_UNAVAILABLE', 'PCCS_HTTP_ERROR', 'PCCS_NOT_FOUND', 'PCCS_BAD_RESPONSE'] as const;
export type PccsCode = (typeof PccsCodes)[number];

/** A collateral directory (config `collateralDir`, CLI `--collateral-dir`) that cannot be used at all. */
export const CollateralDirCodes = ['COLLATERAL_DIR_INVALID'] as const;
export type CollateralDirCode = (typeof CollateralDirCodes)[number];
