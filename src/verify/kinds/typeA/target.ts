/**
 * The typeA target: the enclave's unique ID (MRENCLAVE, 32 bytes) — config.json `uniqueIdTarget`,
 * the ledger mapping `sgx_unique_id` (liveCheck.uniqueIdMapping), `uniqueId` in records, the
 * `Oracle SGX unique ID:` block of get-enclave-id.sh, `targetUniqueId` in GET /info.
 */
import { formatUniqueId } from '../../../aleo/ids.js';
import { uniqueIdFromLeo } from '../../../aleo/leoValue.js';
import { equalBytes, hex } from '../../../bytes.js';
import { badTarget, base64, decodeTarget, isAllZero } from '../targets.js';
import type { KindTarget } from '../types.js';

const BYTES = 32;
const str = { type: 'string' } as const;

export const typeATarget: KindTarget<Uint8Array> = {
  configKey: 'uniqueIdTarget',
  configSchema: { type: 'string', description: 'typeA target: the enclave\'s MRENCLAVE, 32 bytes, hex or base64; missing: computed by reproducibleBuildScript' },
  fromConfig(raw, _config, check) {
    if (typeof raw !== 'string' || raw.trim() === '') return undefined;
    return check(() => {
      const b = decodeTarget('uniqueIdTarget', raw, BYTES);
      if (isAllZero(b)) badTarget(`config: uniqueIdTarget = ${JSON.stringify(raw)}: expected a real measurement, not all zeros`);
      return b;
    });
  },
  required: 'uniqueIdTarget',
  toConfig: base64,
  buildOutput: { marker: 'Oracle SGX unique ID:', items: ['the SGX unique ID'], bytes: BYTES, value: (items) => items[0]! },
  info: {
    key: 'targetUniqueId',
    schema: { type: 'object', properties: { hexEncoded: str, base64Encoded: str, ledgerEncoded: str } },
    of: (id) => ({ hexEncoded: hex(id), base64Encoded: base64(id), ledgerEncoded: formatUniqueId(id) }),
  },
  ledger: {
    name: 'uniqueId',
    recordSchema: str,
    labels: ['unique id'],
    mappingKey: 'uniqueIdMapping',
    defaultMapping: 'sgx_unique_id',
    fromLeo: uniqueIdFromLeo,
    hex,
    shapeProblem: (id) => (id.length !== BYTES ? `the target unique ID has ${id.length} bytes, expected ${BYTES}` : undefined),
    differences: (ledger, target) => (equalBytes(ledger, target) ? [] : [`is ${hex(ledger)} but the target unique ID is ${hex(target)}`]),
  },
};
