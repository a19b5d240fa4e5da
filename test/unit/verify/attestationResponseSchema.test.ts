/**
 * The AttestationResponse schema of POST /verify: it accepts every real notarizer response of both
 * generations, refuses what the route must refuse, and its TypeScript type (derived from it, src/
 * jsonSchemaType.ts) is the one the checks read and agrees with the client library's wire types.
 * The type-level assertions are checked by `npm run typecheck`, which covers test/.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { attestationResponseSchema, type AttestationRequestEcho, type AttestationResponse, type AttestationResult } from '../../../src/verify/attestationResponseSchema.js';
import type { JsonSchemaType } from '../../../src/jsonSchemaType.js';
import type { WireReportType } from '../../../src/verify/kinds/index.js';
import type { AttestationResponse as ClientResponse, MultiAttestationResponse as ClientMultiResponse, VerifyRequestBody } from '../../../src/client/types.js';
import fc from 'fast-check';
import { checkAttestationResponse } from '../../../src/verify/attestationResponse.js';
import { realResponses } from '../../support/era-vectors.js';
import { readVectorJson } from '../../support/paths.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

// A warning of Ajv (e.g. an unknown format it would ignore) fails the test instead of being printed.
const validate = addFormats(new Ajv({ strict: false, allErrors: true, logger: { log: console.log, error: console.error, warn: (...m: unknown[]) => { throw new Error(`ajv: ${m.join(' ')}`); } } })).compile(attestationResponseSchema);
const clone = <T>(v: T): T => structuredClone(v);

describe('the AttestationResponse schema', () => {
  it('accepts every real response (single- and multi-request, both generations, with enclaveUrl)', () => {
    const all = [...realResponses().map((r) => r.response), ...readVectorJson<any[]>('aleo/e2e/docs-example_weather_attestation.json')];
    for (const r of all) expect(validate(r), JSON.stringify(validate.errors)).toBe(true);
    expect(all.some((r) => Array.isArray(r.attestationResults))).toBe(true);
    expect(all.some((r) => typeof r.enclaveUrl === 'string')).toBe(true);
  });

  it('refuses a wrong shape at the offending field', () => {
    const base = realResponses()[1]!.response;
    const at = (r: unknown): string[] => (validate(r) ? [] : validate.errors!.map((e) => `${e.instancePath} ${e.keyword}`));
    expect(at('x')).toEqual([' type']);
    expect(at({ ...clone(base), reportType: 'foo' })).toEqual(['/reportType enum']);
    const od = clone(base);
    od.oracleData.userData = 42;
    expect(at(od)).toEqual(['/oracleData/userData type']);
    const precision = clone(base);
    precision.attestationRequest.encodingOptions.precision = 1.5;
    expect(at(precision)).toEqual(['/attestationRequest/encodingOptions/precision type']);
    const url = clone(base);
    delete url.attestationRequest.url;
    expect(at(url)).toEqual(['/attestationRequest required']);
    const multi = clone(realResponses().find((r) => r.eras.includes(4))!.response);
    multi.attestationResults[1].timestamp = '1768393737';
    expect(at(multi)).toEqual(['/attestationResults/1/timestamp type']);
  });

  it('leaves presence to the per-entry checks: a bare reportType is a valid shape', () => {
    expect(validate({ reportType: 'sgx' })).toBe(true);
    expect(validate({ reportType: 'nitro', oracleData: null, attestationResults: null })).toBe(true);
  });
});

describe('the checks of an entry of the schema\'s shape', () => {
  it('never throw: a real response with fields dropped, nulled or replaced by values of their type', async () => {
    const bases = realResponses().map((r) => r.response);
    const paths = (v: unknown, at: string[] = []): string[][] =>
      typeof v === 'object' && v !== null ? Object.entries(v).flatMap(([k, x]) => [[...at, k], ...paths(x, [...at, k])]) : [];
    const swap = (v: unknown) =>
      typeof v === 'string' ? fc.constantFrom('', 'x', '{ c0: { f0: 1u128 } }', 'AAAA', '00'.repeat(32)) : typeof v === 'number' ? fc.constantFrom(0, -1, 2 ** 53, 200) : fc.constantFrom(null, undefined, [], {});
    const mutated = fc.integer({ min: 0, max: bases.length - 1 }).chain((b) => {
      const base = bases[b]!;
      const all = paths(base);
      return fc.array(fc.integer({ min: 0, max: all.length - 1 }).chain((i) => {
        const path = all[i]!;
        const old = path.reduce<any>((o, k) => o?.[k], base);
        return swap(old).map((value) => ({ path, value }));
      }), { maxLength: 4 }).map((edits) => {
        const r = clone(base);
        for (const { path, value } of edits) {
          const parent = path.slice(0, -1).reduce<any>((o, k) => o?.[k], r);
          if (parent && typeof parent === 'object') {
            if (value === undefined) delete parent[path.at(-1)!];
            else parent[path.at(-1)!] = value;
          }
        }
        return r;
      });
    });
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(mutated, async (r) => {
        if (!validate(r)) return;
        checked++;
        const c = await checkAttestationResponse(r as AttestationResponse, async () => ({ reportValid: false, error: { code: 'USERDATA_HASH_MISMATCH', message: 'stub' } }));
        expect(c.valid).toBe(false);
        expect(typeof c.error?.code).toBe('string');
      }),
      { numRuns: 150, seed: 14 },
    );
    expect(checked).toBeGreaterThan(30);
  });
});

describe('the derived AttestationResponse type', () => {
  it('types every field the checks read', () => {
    expectTypeOf<AttestationResponse['reportType']>().toEqualTypeOf<WireReportType>();
    expectTypeOf<AttestationResponse['attestationReport']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<AttestationResponse['timestamp']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<AttestationResponse['attestationResults']>().toEqualTypeOf<AttestationResult[] | null | undefined>();
    expectTypeOf<NonNullable<AttestationResponse['oracleData']>['userData']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<AttestationResult['attestationRequest']>().toEqualTypeOf<AttestationRequestEcho>();
    expectTypeOf<AttestationResult['timestamp']>().toEqualTypeOf<number>();
    expectTypeOf<AttestationRequestEcho['url']>().toEqualTypeOf<string>();
    expectTypeOf<AttestationRequestEcho['selector']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<AttestationRequestEcho['requestHeaders']>().toEqualTypeOf<Record<string, string> | null | undefined>();
    expectTypeOf<AttestationRequestEcho['encodingOptions']>().toEqualTypeOf<{ value: string; precision?: number }>();
    expect(attestationResponseSchema.required).toEqual(['reportType']);
  });

  it('maps the schema keywords it knows and nothing else', () => {
    const s = {
      type: 'object',
      required: ['a'],
      properties: {
        a: { type: 'integer' },
        b: { type: 'string', enum: ['x', 'y'] },
        c: { type: 'array', nullable: true, items: { type: 'boolean' } },
        d: { type: 'object', additionalProperties: { type: 'number' } },
        e: { oneOf: [] },
      },
    } as const;
    expectTypeOf<JsonSchemaType<typeof s>>().toEqualTypeOf<{ a: number; b?: 'x' | 'y'; c?: boolean[] | null; d?: Record<string, number>; e?: unknown }>();
    expect(s.required).toEqual(['a']);
  });

  it('accepts what the client library sends (its wire types are assignable)', () => {
    const toEntry = (r: VerifyRequestBody['reports'][number]): AttestationResponse => r;
    expectTypeOf<ClientResponse>().toMatchTypeOf<AttestationResponse>();
    expectTypeOf<ClientMultiResponse>().toMatchTypeOf<AttestationResponse>();
    const sent: ClientResponse = readVectorJson<any>('aleo/e2e/docs-example_btc_usdc_attestation_nitro.json');
    expect(validate(toEntry(sent))).toBe(true);
  });
});
