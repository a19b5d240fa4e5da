/**
 * SGX TCB Info (spec §6, §10): strict parsing of versions 2 and 3 and platform TCB level matching.
 *
 * v2: { version 2, issueDate, nextUpdate, fmspc, pceId, tcbType, tcbEvaluationDataNumber,
 *       tcbLevels: [{ tcb: { sgxtcbcomp01svn … sgxtcbcomp16svn, pcesvn }, tcbDate, tcbStatus, advisoryIDs? }] }
 * v3: { id "SGX", version 3, … same …, tcbLevels: [{ tcb: { sgxtcbcomponents: [16 × { svn, category?, type? }], pcesvn }, … }] }
 */
import { typeAError } from './errors.js';
import { JsonReader, iso } from './json.js';
import { PLATFORM_TCB_STATUSES, type TcbStatus } from './tcbStatus.js';

export interface TcbLevel {
  /** Position in the signed document. */
  readonly index: number;
  readonly components: readonly number[]; // 16
  readonly pceSvn: number;
  readonly tcbDate: string;
  readonly tcbStatus: TcbStatus;
  readonly advisoryIds: readonly string[];
}

export interface TcbInfo {
  readonly version: 2 | 3;
  readonly issueDate: number; // epoch ms
  readonly nextUpdate: number; // epoch ms
  readonly fmspc: Uint8Array; // 6
  readonly pceId: Uint8Array; // 2
  readonly tcbType: number;
  readonly tcbEvaluationDataNumber: number;
  /** Levels sorted descending (components lexicographically, then PCESVN); stable. */
  readonly tcbLevels: readonly TcbLevel[];
}

const COMP_KEYS = Array.from({ length: 16 }, (_, i) => `sgxtcbcomp${String(i + 1).padStart(2, '0')}svn`);

/** Descending order of Intel's TCB levels: CPUSVN components lexicographically, then PCESVN. */
function compareLevelsDesc(a: TcbLevel, b: TcbLevel): number {
  for (let i = 0; i < 16; i++) {
    const d = b.components[i]! - a.components[i]!;
    if (d !== 0) return d;
  }
  return b.pceSvn - a.pceSvn || a.index - b.index;
}

/** Parses the exact signed `tcbInfo` body text. Throws TYPEA_TCB_INFO_MALFORMED / _UNSUPPORTED_VERSION. */
export function parseTcbInfo(raw: string): TcbInfo {
  const r = new JsonReader('TYPEA_TCB_INFO_MALFORMED', 'TCB info');
  const o = r.parse(raw);
  const version = o.version;
  if (version !== 2 && version !== 3) {
    typeAError('TYPEA_TCB_INFO_UNSUPPORTED_VERSION', `TCB info version ${JSON.stringify(version)}, expected 2 or 3`);
  }
  const common = ['version', 'issueDate', 'nextUpdate', 'fmspc', 'pceId', 'tcbType', 'tcbEvaluationDataNumber', 'tcbLevels'];
  if (version === 3) {
    r.keys(o, 'tcbInfo', ['id', ...common]);
    if (o.id !== 'SGX') r.fail(`id ${JSON.stringify(o.id)}, expected "SGX" (TDX TCB info is not accepted)`);
  } else {
    r.keys(o, 'tcbInfo', common);
  }
  const issueDate = r.date(o.issueDate, 'issueDate');
  const nextUpdate = r.date(o.nextUpdate, 'nextUpdate');
  if (nextUpdate < issueDate) r.fail(`nextUpdate ${iso(nextUpdate)} is before issueDate ${iso(issueDate)}`);
  const tcbType = r.uint(o.tcbType, 'tcbType', 0xffff);
  if (tcbType !== 0) r.fail(`tcbType ${tcbType}, expected 0`);

  const levelsRaw = r.arr(o.tcbLevels, 'tcbLevels');
  if (levelsRaw.length === 0) r.fail('tcbLevels is empty');
  const levels = levelsRaw.map((lv, index): TcbLevel => {
    const p = `tcbLevels[${index}]`;
    const l = r.obj(lv, p);
    r.keys(l, p, ['tcb', 'tcbDate', 'tcbStatus'], ['advisoryIDs']);
    const tcb = r.obj(l.tcb, `${p}.tcb`);
    let components: number[];
    if (version === 3) {
      r.keys(tcb, `${p}.tcb`, ['sgxtcbcomponents', 'pcesvn']);
      const comps = r.arr(tcb.sgxtcbcomponents, `${p}.tcb.sgxtcbcomponents`);
      if (comps.length !== 16) r.fail(`${p}.tcb.sgxtcbcomponents has ${comps.length} entries, expected 16`);
      components = comps.map((c, i) => {
        const cp = `${p}.tcb.sgxtcbcomponents[${i}]`;
        const co = r.obj(c, cp);
        r.keys(co, cp, ['svn'], ['category', 'type']);
        if (co.category !== undefined) r.str(co.category, `${cp}.category`);
        if (co.type !== undefined) r.str(co.type, `${cp}.type`);
        return r.uint(co.svn, `${cp}.svn`, 255);
      });
    } else {
      r.keys(tcb, `${p}.tcb`, [...COMP_KEYS, 'pcesvn']);
      components = COMP_KEYS.map((k) => r.uint(tcb[k], `${p}.tcb.${k}`, 255));
    }
    const tcbDate = r.str(l.tcbDate, `${p}.tcbDate`);
    r.date(tcbDate, `${p}.tcbDate`);
    return {
      index,
      components,
      pceSvn: r.uint(tcb.pcesvn, `${p}.tcb.pcesvn`, 0xffff),
      tcbDate,
      tcbStatus: r.oneOf(l.tcbStatus, `${p}.tcbStatus`, PLATFORM_TCB_STATUSES),
      advisoryIds: r.advisories(l.advisoryIDs, `${p}.advisoryIDs`),
    };
  });

  return {
    version,
    issueDate,
    nextUpdate,
    fmspc: r.hex(o.fmspc, 'fmspc', 6),
    pceId: r.hex(o.pceId, 'pceId', 2),
    tcbType,
    tcbEvaluationDataNumber: r.uint(o.tcbEvaluationDataNumber, 'tcbEvaluationDataNumber', 0xffffffff),
    tcbLevels: [...levels].sort(compareLevelsDesc),
  };
}

/** issueDate ≤ time ≤ nextUpdate (epoch ms, inclusive). */
export function checkTcbInfoTime(info: TcbInfo, time: number): void {
  if (!(time >= info.issueDate)) {
    typeAError('TYPEA_TCB_INFO_NOT_YET_VALID', `TCB info not yet valid at ${iso(time)} (issueDate ${iso(info.issueDate)})`);
  }
  if (time > info.nextUpdate) {
    typeAError('TYPEA_TCB_INFO_EXPIRED', `TCB info expired at ${iso(info.nextUpdate)} (its nextUpdate; verification time ${iso(time)})`);
  }
}

/**
 * §10: the first level (in descending order) whose 16 components are all ≤ the PCK's and whose
 * PCESVN ≤ the PCK's. Throws TYPEA_TCB_LEVEL_NOT_FOUND when none matches.
 */
export function matchTcbLevel(info: TcbInfo, pckComponents: readonly number[], pckPceSvn: number): TcbLevel {
  if (pckComponents.length !== 16) typeAError('TYPEA_TCB_LEVEL_NOT_FOUND', `PCK has ${pckComponents.length} TCB components, expected 16`);
  for (const level of info.tcbLevels) {
    let ok = pckPceSvn >= level.pceSvn;
    for (let i = 0; ok && i < 16; i++) ok = pckComponents[i]! >= level.components[i]!;
    if (ok) return level;
  }
  return typeAError(
    'TYPEA_TCB_LEVEL_NOT_FOUND',
    `no TCB level of FMSPC ${Buffer.from(info.fmspc).toString('hex').toUpperCase()} matches PCK TCB components [${pckComponents.join(',')}] PCESVN ${pckPceSvn}`,
  );
}
