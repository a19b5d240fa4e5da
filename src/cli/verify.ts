/**
 * `oracle-verifier verify --user-data FILE --report FILE`: one userData/report pair, the same
 * result as POST /decodeReport (`--json`), or a readable summary.
 */
import { readFileSync } from 'node:fs';
import { intOption, parseArgs, timeOption } from './args.js';
import { createCliVerifier, decodeReportBody } from './context.js';
import { cliError, EXIT } from './errors.js';
import { measurementsOf } from '../ledger/records/updateRecord.js';
import { outcomeFor } from '../errorCodes.js';
import type { VerifyOutcome } from '../verify/types.js';

export const VERIFY_USAGE = `usage: oracle-verifier verify --user-data FILE --report FILE [--nonce HEX|BASE64] [--at ISO-TIME]
       [--config PATH] [--workers N] [--collateral-dir DIR] [--pccs URL] [--json]
FILE holds the ledger struct text (or a JSON string of it).
exit: 0 valid, 1 invalid, 2 could not verify (outcome unverifiable: PCCS or collateral unavailable; bad arguments)`;

function readStructFile(file: string, what: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw cliError('CLI_BAD_INPUT', `${what} ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  const t = text.trim();
  if (t.startsWith('"')) {
    try {
      const v: unknown = JSON.parse(t);
      if (typeof v === 'string') return v;
    } catch {
      /* not a JSON string: use the text as is */
    }
  }
  return text;
}

export function readableSummary(out: VerifyOutcome): string {
  const lines: string[] = [];
  lines.push(`report type:   ${out.reportType ?? '(not detected)'}`);
  const outcome = outcomeFor(out.reportValid, out.error?.code);
  lines.push(`report valid:  ${out.reportValid ? 'yes' : 'NO'}`);
  lines.push(`outcome:       ${outcome}${outcome === 'unverifiable' ? ' (could not verify: no verdict on the report; try again later)' : ''}`);
  if (out.error) lines.push(`failure:       ${out.error.code}: ${out.error.message}`);
  const v = out.decodedReport;
  if (v) {
    const m = measurementsOf(out);
    if ('uniqueId' in m) lines.push(`unique id:     ${m.uniqueId}`);
    if ('pcrs' in m) m.pcrs.forEach((p, i) => lines.push(`PCR${i}:          ${p}`));
    if (typeof v.tcbStatusName === 'string') lines.push(`TCB status:    ${v.tcbStatusName}${Array.isArray(v.advisoryIds) && v.advisoryIds.length ? ` (${v.advisoryIds.join(', ')})` : ''}`);
    if (typeof v.timestamp === 'number') lines.push(`document time: ${new Date(v.timestamp).toISOString()}`);
  }
  const d = out.decodedData as Record<string, unknown> | undefined;
  if (d) {
    lines.push(`url:           ${String(d.url)}`);
    lines.push(`selector:      ${String(d.selector)}`);
    lines.push(`data:          ${String(d.attestationData)}`);
    if (typeof d.timestamp === 'number') lines.push(`attested at:   ${new Date(d.timestamp * 1000).toISOString()}`);
  }
  const requests = out.decodedRequests ?? [];
  if (requests.length > 1 || requests.some((q) => q.tokenId !== undefined)) {
    requests.forEach((q, i) => {
      const token = q.tokenId === undefined ? '' : ` (token ${q.tokenId})`;
      lines.push(`request ${i}:     ${q.url}${token}: ${q.attestationData}${q.requestHash === undefined ? '' : `, requestHash ${q.requestHash}`}`);
    });
  }
  return `${lines.join('\n')}\n`;
}

export async function verifyCommand(argv: readonly string[], io: { stdout: (s: string) => void; stderr: (s: string) => void }): Promise<number> {
  const a = parseArgs(argv, { values: ['user-data', 'report', 'nonce', 'at', 'config', 'workers', 'collateral-dir', 'pccs'], flags: ['json', 'help'] });
  if (a.flags.has('help')) {
    io.stderr(`${VERIFY_USAGE}\n`);
    return 0;
  }
  const u = a.values.get('user-data');
  const r = a.values.get('report');
  if (!u || !r || a.positionals.length) throw cliError('CLI_USAGE', `verify: --user-data FILE and --report FILE are required\n${VERIFY_USAGE}`);
  const userData = readStructFile(u, '--user-data');
  const report = readStructFile(r, '--report');
  const at = timeOption(a, 'at');
  const verifier = createCliVerifier({
    ...(a.values.has('config') ? { configPath: a.values.get('config')! } : {}),
    ...(at !== undefined ? { at } : {}),
    workers: intOption(a, 'workers', 0, 0, 256)!,
    ...(a.values.has('collateral-dir') ? { collateralDir: a.values.get('collateral-dir')! } : {}),
    ...(a.values.has('pccs') ? { pccsUrl: a.values.get('pccs')! } : {}),
  });
  try {
    const out = await verifier.verify(userData, report, a.values.get('nonce'));
    io.stdout(a.flags.has('json') ? `${JSON.stringify(decodeReportBody(out), null, 2)}\n` : readableSummary(out));
    const outcome = outcomeFor(out.reportValid, out.error?.code);
    return outcome === 'valid' ? EXIT.ALL_VALID : outcome === 'unverifiable' ? EXIT.INCOMPLETE : EXIT.SOME_INVALID;
  } finally {
    await verifier.close();
  }
}
