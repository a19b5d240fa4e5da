/**
 * One minted typeA (SGX) `/decodeReport` request and the config that trusts its test PKI: a quote
 * of the UpToDate platform bound to a userData, whose collateral a PCCS (test/support/pccs-server.ts,
 * in-process or as a process) serves from `bundle`. Verifying it needs the PCCS: the quote's own
 * checks pass, then its collateral is asked for.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleFromCollateral, type PccsBundle } from './pccs-server.js';
import { makeUserData, openEnclaveReport, reportText, sampleRequest } from './ledger-reports.js';
import { mintTypeAPki, type TestPki } from './typea-pki.js';
import { defaultPcrs } from './typeb-pki.js';

export const MINTED_MRENCLAVE = new Uint8Array(32).fill(0x5a);

export interface MintedSgx {
  pki: TestPki;
  bundle: PccsBundle;
  /** Config keys trusting the test root, with its targets and verification time (add pccsUrl). */
  config: Record<string, unknown>;
  /** A `/decodeReport` body; `value` makes each one distinct. */
  request(value?: string): { userData: string; report: string };
  /** The same attestation as a notarizer's response (a `POST /verify` entry). */
  response(value?: string): Record<string, unknown>;
}

/** Writes the test root to `dir`/sgx-root.pem. */
export function mintSgx(dir: string): MintedSgx {
  const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
  const pki = mintTypeAPki({ pckTcb: { components: [21, 21, 2, 4, 1, 128, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0], pceSvn: 13, fmspc: '00906ED50000', pceId: '0000' } });
  const root = join(dir, 'sgx-root.pem');
  writeFileSync(root, pki.root.pem);
  return {
    pki,
    bundle: bundleFromCollateral(pki.collateral),
    config: {
      uniqueIdTarget: hex(MINTED_MRENCLAVE),
      pcrValuesTarget: defaultPcrs().slice(0, 3).map(hex),
      acceptedTcbStatuses: ['UpToDate'],
      trustedRoots: { typeA: root },
      verificationTime: new Date(pki.time).toISOString(),
    },
    request(value = '1.00000001') {
      return minted(value).texts;
    },
    response(value = '1.00000001') {
      const { texts, attestation } = minted(value);
      const { attestationData: _a, responseStatusCode, timestamp, ...request } = sampleRequest;
      return {
        reportType: 'sgx',
        attestationReport: Buffer.from(attestation).toString('base64'),
        attestationRequest: request,
        attestationData: value,
        responseStatusCode,
        timestamp,
        oracleData: texts,
      };
    },
  };

  function minted(value: string): { texts: { userData: string; report: string }; attestation: Uint8Array } {
    const ud = makeUserData({ attestationData: value });
    const rd = new Uint8Array(64);
    rd.set(ud.hash);
    const attestation = openEnclaveReport(pki.quote({ reportData: rd, mrEnclave: MINTED_MRENCLAVE }));
    return { texts: { userData: ud.text, report: reportText(attestation) }, attestation };
  }
}
