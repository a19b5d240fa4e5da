/**
 * The typeB target: PCR0, PCR1 and PCR2 (48 bytes each) — config.json `pcrValuesTarget`, the
 * ledger mapping `nitro_pcr_values` (liveCheck.pcrValuesMapping), `pcrs` in records, the
 * `Oracle Nitro PCR:` block of get-enclave-id.sh, `targetPcrValues` in GET /info.
 */
import { formatPcrStruct } from '../../../aleo/ids.js';
import { pcrsFromLeo } from '../../../aleo/leoValue.js';
import { equalBytes, hex } from '../../../bytes.js';
import { badTarget, base64, decodeTarget, isAllZero } from '../targets.js';
import type { KindTarget } from '../types.js';

const BYTES = 48;
const COUNT = 3;
const str = { type: 'string' } as const;
const strs = { type: 'array', items: str } as const;

export const typeBTarget: KindTarget<readonly Uint8Array[]> = {
  configKey: 'pcrValuesTarget',
  configSchema: { type: 'array', items: { type: 'string' }, maxItems: COUNT, description: 'typeB target: PCR0, PCR1, PCR2, 48 bytes each, hex or base64; fewer than 3: computed by reproducibleBuildScript' },
  fromConfig(raw, config, check) {
    if (!Array.isArray(raw)) return undefined;
    const pcrs = raw.map((v: unknown, i) =>
      typeof v !== 'string'
        ? undefined
        : check(() => {
            const b = decodeTarget(`pcrValuesTarget[${i}]`, v, BYTES);
            // Debug Nitro enclaves have all-zero PCRs: such a target only makes sense for debug enclaves.
            if (i === 0 && isAllZero(b) && config.allowDebugEnclaves !== true) {
              badTarget(`config: pcrValuesTarget[0] = ${JSON.stringify(v)}: an all-zero PCR0 is a debug enclave; expected a production measurement, or set allowDebugEnclaves: true to verify debug enclaves`);
            }
            return b;
          }),
    );
    return pcrs.length === COUNT && pcrs.every((b) => b !== undefined) ? pcrs : undefined;
  },
  required: 'three pcrValuesTarget',
  toConfig: (pcrs) => pcrs.map(base64),
  buildOutput: { marker: 'Oracle Nitro PCR:', items: ['Nitro PCR0', 'Nitro PCR1', 'Nitro PCR2'], bytes: BYTES, value: (items) => items },
  info: {
    key: 'targetPcrValues',
    schema: { type: 'object', properties: { hexEncoded: strs, base64Encoded: strs, ledgerEncoded: str } },
    of: (pcrs) => ({ hexEncoded: pcrs.map(hex), base64Encoded: pcrs.map(base64), ledgerEncoded: formatPcrStruct(pcrs) }),
  },
  ledger: {
    name: 'pcrs',
    recordSchema: strs,
    labels: ['PCR0', 'PCR1', 'PCR2'],
    mappingKey: 'pcrValuesMapping',
    defaultMapping: 'nitro_pcr_values',
    fromLeo: pcrsFromLeo,
    hex: (pcrs) => pcrs.map(hex),
    shapeProblem(pcrs) {
      if (pcrs.length !== COUNT) return `${pcrs.length} target PCR values given, expected ${COUNT}`;
      const i = pcrs.findIndex((p) => p.length !== BYTES);
      return i === -1 ? undefined : `the target PCR${i} has ${pcrs[i]!.length} bytes, expected ${BYTES}`;
    },
    differences: (ledger, target) => ledger.flatMap((pcr, i) => (equalBytes(pcr, target[i]!) ? [] : [`has PCR${i} ${hex(pcr)} but the target PCR${i} is ${hex(target[i]!)}`])),
  },
};
