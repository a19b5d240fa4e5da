/**
 * The two struct files of `verify`, judged as input before any verdict: a file that is not the
 * ledger struct it is given as (does not parse: wrong syntax, keys, values or chunk count) is an
 * input error, and a pair given the wrong way round (the report file holds a userData struct and
 * the userData file a report) is a usage error. Only a pair that parses is judged, and every
 * check it then fails is a verdict on it.
 */
import { parseChunkedStruct, REPORT_CHUNKS } from '../aleo/struct.js';
import { parseUserData, USER_DATA_CHUNK_COUNTS } from '../encoding/eras/index.js';
import { isVerifierError } from '../errors.js';
import { findReportKind } from '../verify/kinds/index.js';
import { cliError } from './errors.js';

export interface StructFiles {
  readonly userData: { readonly file: string; readonly text: string };
  readonly report: { readonly file: string; readonly text: string };
}

type Parsed = { ok: true; bytes: Uint8Array } | { ok: false; why: string };

function tryParse(parse: () => Uint8Array): Parsed {
  try {
    return { ok: true, bytes: parse() };
  } catch (e) {
    if (isVerifierError(e)) return { ok: false, why: `${e.code}: ${e.message}` };
    throw e;
  }
}

const asReport = (text: string): Parsed => tryParse(() => parseChunkedStruct(text, REPORT_CHUNKS, 'report'));
const asUserData = (text: string): Parsed => tryParse(() => parseUserData(text));
/** A report struct whose bytes begin with a known kind's prefix. */
const reportKindOf = (p: Parsed): string | undefined => (p.ok ? findReportKind(p.bytes)?.id : undefined);
const chunkCount = (p: Parsed): number | undefined => (p.ok ? p.bytes.length / 512 : undefined);

/** Throws CLI_USAGE for a swapped pair and CLI_BAD_INPUT for a file that is not its struct; returns for a pair to judge. */
export function checkStructFiles(f: StructFiles): void {
  const report = asReport(f.report.text);
  const userData = asUserData(f.userData.text);
  const reportKind = reportKindOf(report);
  const inUserDataFile = reportKindOf(asReport(f.userData.text));
  if (reportKind === undefined && inUserDataFile !== undefined) {
    const inReportFile = asUserData(f.report.text);
    if (inReportFile.ok) {
      throw cliError(
        'CLI_USAGE',
        `verify: the files look swapped: --report ${f.report.file} holds a userData struct (${chunkCount(inReportFile)} chunks) and --user-data ${f.userData.file} a ${inUserDataFile} report (${REPORT_CHUNKS} chunks); give --user-data ${f.report.file} --report ${f.userData.file}`,
      );
    }
  }
  if (!report.ok) throw cliError('CLI_BAD_INPUT', `verify: --report ${f.report.file} is not a report struct (${REPORT_CHUNKS} chunks of 32 u128 fields), so there is no report to judge: ${report.why}`);
  if (!userData.ok) {
    throw cliError('CLI_BAD_INPUT', `verify: --user-data ${f.userData.file} is not a userData struct (${USER_DATA_CHUNK_COUNTS.join(' or ')} chunks of 32 u128 fields), so there is no report to judge: ${userData.why}`);
  }
}
