/** The real oracle responses of every era (../shared/vectors/aleo), with their userData. */
import { readVectorJson } from './paths.js';

export interface RealResponse {
  name: string;
  /** The eras the userData must be detected as. */
  eras: number[];
  response: Record<string, any>;
  userData: string;
}

const response = (name: string, eras: number[], ...path: string[]): RealResponse => {
  const raw = readVectorJson<any>(...path);
  const r = Array.isArray(raw) ? raw[0] : raw;
  return { name, eras, response: r, userData: r.oracleData.userData as string };
};

/** Notarizer responses (the AttestationResponse of each generation). */
export function realResponses(): RealResponse[] {
  return [
    response('docs weather (2024, EGo, legacy)', [1], 'aleo/e2e/docs-example_weather_attestation.json'),
    response('docs btc/usdc Nitro (2024, legacy)', [1], 'aleo/e2e/docs-example_btc_usdc_attestation_nitro.json'),
    response('v23 sgx_response (2025-06)', [1, 2], 'aleo/e2e/v23-contracts-test-sgx_response.json'),
    response('v23 btc_usdc (2025-06)', [1, 2], 'aleo/e2e/v23-contracts-test-btc_usdc.json'),
    response('v23 eth_usdc (2025-06)', [1, 2], 'aleo/e2e/v23-contracts-test-eth_usdc.json'),
    response('v23 aleo_usdc (2025-06)', [1, 2], 'aleo/e2e/v23-contracts-test-aleo_usdc.json'),
    response('Gramine weather (2025-08-04)', [1, 2], 'aleo/venture23/weather-2025-08-04.response.json'),
    response('Gramine random (2025-07-21)', [1, 2], 'aleo/venture23/random-2025-07-21.response.json'),
    response('multi-token (2026-01-14)', [4], 'aleo/venture23/multi-token-2026-01-14.response.json'),
  ];
}

/** The other real userData texts (README examples, 2023). */
export function realUserDataTexts(): { name: string; eras: number[]; userData: string }[] {
  const ex = readVectorJson<any>('aleo/e2e/readme-decodeReport-examples.json');
  return [
    { name: 'README /decode example', eras: [1], userData: readVectorJson<any>('aleo/decode-example.request.json').userData },
    { name: 'README /decodeReport sgx', eras: [1], userData: ex.sgx.request.userData },
    { name: 'README /decodeReport nitro', eras: [1], userData: ex.nitro.request.userData },
  ];
}

export const multiToken = (): Record<string, any> => readVectorJson<any>('aleo/venture23/multi-token-2026-01-14.response.json');
