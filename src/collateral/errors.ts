import type { DomainCode } from '../errorCodes.js';
export type PccsCode = DomainCode<'pccs'>;

/** A collateral directory (config `collateralDir`, CLI `--collateral-dir`) that cannot be used at all. */
export type CollateralDirCode = DomainCode<'collateralDir'>;

/** The collateral archive (src/collateral/archive.ts) or a file imported into it that cannot be used. */
export type CollateralArchiveCode = DomainCode<'collateralArchive'>;
