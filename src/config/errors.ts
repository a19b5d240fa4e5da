export const ConfigCodes = [
  'CONFIG_NOT_FOUND',
  'CONFIG_NOT_JSON',
  'CONFIG_INVALID',
  'CONFIG_BAD_TARGET',
  'CONFIG_BAD_TRUST_ROOT',
  'CONFIG_BAD_TLS',
] as const;
export type ConfigCode = (typeof ConfigCodes)[number];
