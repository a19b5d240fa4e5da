/** An all-zero PCR0 target (a debug Nitro enclave) is accepted only with allowDebugEnclaves. */
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/load.js';
import { VerifierError } from '../../../src/errors.js';
import { readVectorJson } from '../../support/paths.js';

const t = readVectorJson<any>('production-targets.json');
const zeroPcrs = ['00'.repeat(48), '00'.repeat(48), '00'.repeat(48)];
const base = { port: 8080, liveCheck: { skip: true }, uniqueIdTarget: t.uniqueIdTarget };

describe('debug PCR targets', () => {
  it('are refused by default, with a message that names allowDebugEnclaves', () => {
    for (const extra of [{}, { allowDebugEnclaves: false }]) {
      let err: unknown;
      try {
        resolveConfig({ ...base, ...extra, pcrValuesTarget: zeroPcrs }, '/');
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(VerifierError);
      expect(err).toMatchObject({ code: 'CONFIG_BAD_TARGET' });
      expect((err as Error).message).toMatch(/^config: pcrValuesTarget\[0\] = "0{96}": an all-zero PCR0 is a debug enclave; .*set allowDebugEnclaves: true/);
    }
  });

  it('are accepted with allowDebugEnclaves: true (all three PCRs zero, as a debug enclave reports them)', () => {
    const c = resolveConfig({ ...base, allowDebugEnclaves: true, pcrValuesTarget: zeroPcrs }, '/');
    expect(c.allowDebugEnclaves).toBe(true);
    expect(c.targets.typeB!.map((b) => Buffer.from(b).toString('hex'))).toEqual(zeroPcrs);
  });

  it('an all-zero unique ID stays refused (a debug SGX enclave keeps its real MRENCLAVE)', () => {
    expect(() => resolveConfig({ ...base, allowDebugEnclaves: true, uniqueIdTarget: '00'.repeat(32) }, '/')).toThrow(/uniqueIdTarget .*not all zeros/);
  });
});
