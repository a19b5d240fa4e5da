/**
 * Offline inputs of the CLI benches: the real README sgx and nitro updates repeated (N each,
 * alternating) and written as JSONL, the recorded 2026 Intel collateral written to a collateral
 * directory by `collateral fetch`, and a config whose targets are the updates' measurements.
 * typeA verifies at AT (2026-09-23).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PccsClient } from '../src/collateral/pccsClient.js';
import { fetchCollateralDir } from '../src/cli/collateralDir.js';
import { recordedBundle2026, startPccsServer } from '../test/support/pccs-server.js';

export const AT = Date.parse('2026-09-23T00:00:00Z');

export interface OfflineUpdates {
  dir: string;
  config: string;
  collateralDir: string;
  pairs: { userData: string; report: string }[];
  jsonl: string;
}

export async function offlineUpdates(n: number, prefix: string): Promise<OfflineUpdates> {
  const VECTORS = resolve(process.cwd(), '../shared/vectors');
  const ex = JSON.parse(readFileSync(join(VECTORS, 'aleo/e2e/readme-decodeReport-examples.json'), 'utf8'));
  const doc = JSON.parse(readFileSync(join(VECTORS, 'nitro/manifest.json'), 'utf8')).vectors.find((v: { file: string }) => v.file === 'oracle-nitro-report.hex');
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const pccs = await startPccsServer(recordedBundle2026(VECTORS));
  await fetchCollateralDir(new PccsClient({ baseUrl: pccs.url }), pccs.url, ['00906ed50000'], join(dir, 'collateral'));
  await pccs.close();
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({
    uniqueIdTarget: '58e26caa30264d74ee496f370cdf0433a82808f13fb26b885d3f1e54dc7a34df',
    pcrValuesTarget: [doc.pcr0, doc.pcr1, doc.pcr2],
    acceptedTcbStatuses: ['UpToDate', 'SWHardeningNeeded', 'OutOfDate'],
  }));
  const pairs = Array.from({ length: 2 * n }, (_, i) => (i % 2 ? ex.nitro.request : ex.sgx.request) as { userData: string; report: string });
  const jsonl = join(dir, 'in.jsonl');
  writeFileSync(jsonl, pairs.map((p, i) => JSON.stringify({ ...p, id: i })).join('\n') + '\n');
  return { dir, config, collateralDir: join(dir, 'collateral'), pairs, jsonl };
}
