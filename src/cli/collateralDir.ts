/**
 * `oracle-verifier collateral fetch`: writes a collateral directory (layout and reader:
 * src/collateral/collateralDir.ts) from a PCCS or Intel PCS.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { VerifierError } from '../errors.js';
import { splitSignedBody } from '../attestation/typeA/collateral.js';
import type { PccsClient, PckCa } from '../collateral/pccsClient.js';
import { COLLATERAL_DIR_FORMAT, DIR_FILES, type CollateralManifest } from '../collateral/collateralDir.js';
import { cliError } from './errors.js';

function writeAtomic(file: string, data: string | Uint8Array): void {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

/** Fetches the collateral of the given FMSPCs (and both PCK CRLs when served) into `dir`. */
export async function fetchCollateralDir(client: PccsClient, pccsUrl: string, fmspcs: readonly string[], dir: string, log: (line: string) => void = () => {}): Promise<CollateralManifest> {
  const list = [...new Set(fmspcs.map((f) => f.toLowerCase()))];
  for (const f of list) if (!/^[0-9a-f]{12}$/.test(f)) throw cliError('CLI_USAGE', `--fmspc ${JSON.stringify(f)}: expected 6 bytes of hex (12 hex digits)`);
  if (list.length === 0) throw cliError('CLI_USAGE', 'collateral fetch: give at least one --fmspc');
  mkdirSync(join(dir, 'tcb'), { recursive: true });
  mkdirSync(join(dir, 'pckcrl'), { recursive: true });
  for (const f of list) {
    const t = await client.tcbInfo(f);
    splitSignedBody(t.body, 'tcbInfo'); // refuse to store a body the verifier cannot use
    writeAtomic(join(dir, DIR_FILES.tcbInfo(f)), t.body);
    writeAtomic(join(dir, DIR_FILES.tcbInfoChain(f)), t.issuerChain);
    log(`tcb/${f}.json: ${t.body.length} bytes`);
  }
  const qe = await client.qeIdentity();
  splitSignedBody(qe.body, 'enclaveIdentity');
  writeAtomic(join(dir, DIR_FILES.qeIdentity), qe.body);
  writeAtomic(join(dir, DIR_FILES.qeIdentityChain), qe.issuerChain);
  log(`qe_identity.json: ${qe.body.length} bytes`);
  const cas: PckCa[] = [];
  for (const ca of ['processor', 'platform'] as const) {
    try {
      const c = await client.pckCrl(ca);
      writeAtomic(join(dir, DIR_FILES.pckCrl(ca)), c.der);
      writeAtomic(join(dir, DIR_FILES.pckCrlChain(ca)), c.issuerChain);
      cas.push(ca);
      log(`pckcrl/${ca}.der: ${c.der.length} bytes`);
    } catch (e) {
      if (e instanceof VerifierError && e.code === 'PCCS_NOT_FOUND') {
        log(`pckcrl/${ca}: not served (404), skipped`);
        continue;
      }
      throw e;
    }
  }
  if (cas.length === 0) throw cliError('CLI_COLLATERAL_DIR_INVALID', 'collateral fetch: the PCCS served neither the processor nor the platform PCK CRL');
  const root = await client.rootCaCrl();
  writeAtomic(join(dir, DIR_FILES.rootCaCrl), root);
  log(`rootcacrl.der: ${root.length} bytes`);
  const manifest: CollateralManifest = { format: COLLATERAL_DIR_FORMAT, pccsUrl, fetchedAt: new Date().toISOString(), fmspcs: list, pckCrlCas: cas };
  writeAtomic(join(dir, DIR_FILES.manifest), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}
