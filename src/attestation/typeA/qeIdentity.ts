/**
 * QE Identity (spec §7, §8): strict parsing of the `enclaveIdentity` body (id "QE", version 2),
 * the identity policy against the QE report body, and the QE TCB level.
 */
import type { ReportBody } from './quote.js';
import { typeAError } from './errors.js';
import { JsonReader, iso } from './json.js';
import { QE_TCB_STATUSES, type QeTcbStatus } from './tcbStatus.js';
import { hex } from '../../bytes.js';

export interface QeTcbLevel {
  readonly index: number;
  readonly isvSvn: number;
  readonly tcbDate: string;
  readonly tcbStatus: QeTcbStatus;
  readonly advisoryIds: readonly string[];
}

export interface QeIdentity {
  readonly id: 'QE';
  readonly version: 2;
  readonly issueDate: number; // epoch ms
  readonly nextUpdate: number; // epoch ms
  readonly tcbEvaluationDataNumber: number;
  readonly miscSelect: number;
  readonly miscSelectMask: number;
  readonly attributes: Uint8Array; // 16
  readonly attributesMask: Uint8Array; // 16
  readonly mrSigner: Uint8Array; // 32
  readonly isvProdId: number;
  /** Sorted by ISVSVN, descending (stable). */
  readonly tcbLevels: readonly QeTcbLevel[];
}

function u32be(b: Uint8Array): number {
  return ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0;
}

/** Parses the exact signed `enclaveIdentity` body text. */
export function parseQeIdentity(raw: string): QeIdentity {
  const r = new JsonReader('TYPEA_QE_IDENTITY_MALFORMED', 'QE identity');
  const o = r.parse(raw);
  if (o.version !== 2) {
    typeAError('TYPEA_QE_IDENTITY_UNSUPPORTED_VERSION', `QE identity version ${JSON.stringify(o.version)}, expected 2`);
  }
  r.keys(o, 'enclaveIdentity', [
    'id',
    'version',
    'issueDate',
    'nextUpdate',
    'tcbEvaluationDataNumber',
    'miscselect',
    'miscselectMask',
    'attributes',
    'attributesMask',
    'mrsigner',
    'isvprodid',
    'tcbLevels',
  ]);
  if (o.id !== 'QE') r.fail(`id ${JSON.stringify(o.id)}, expected "QE"`);
  const issueDate = r.date(o.issueDate, 'issueDate');
  const nextUpdate = r.date(o.nextUpdate, 'nextUpdate');
  if (nextUpdate < issueDate) r.fail(`nextUpdate ${iso(nextUpdate)} is before issueDate ${iso(issueDate)}`);
  const levelsRaw = r.arr(o.tcbLevels, 'tcbLevels');
  if (levelsRaw.length === 0) r.fail('tcbLevels is empty');
  const levels = levelsRaw.map((lv, index): QeTcbLevel => {
    const p = `tcbLevels[${index}]`;
    const l = r.obj(lv, p);
    r.keys(l, p, ['tcb', 'tcbDate', 'tcbStatus'], ['advisoryIDs']);
    const tcb = r.obj(l.tcb, `${p}.tcb`);
    r.keys(tcb, `${p}.tcb`, ['isvsvn']);
    const tcbDate = r.str(l.tcbDate, `${p}.tcbDate`);
    r.date(tcbDate, `${p}.tcbDate`);
    return {
      index,
      isvSvn: r.uint(tcb.isvsvn, `${p}.tcb.isvsvn`, 0xffff),
      tcbDate,
      tcbStatus: r.oneOf(l.tcbStatus, `${p}.tcbStatus`, QE_TCB_STATUSES),
      advisoryIds: r.advisories(l.advisoryIDs, `${p}.advisoryIDs`),
    };
  });
  return {
    id: 'QE',
    version: 2,
    issueDate,
    nextUpdate,
    tcbEvaluationDataNumber: r.uint(o.tcbEvaluationDataNumber, 'tcbEvaluationDataNumber', 0xffffffff),
    miscSelect: u32be(r.hex(o.miscselect, 'miscselect', 4)),
    miscSelectMask: u32be(r.hex(o.miscselectMask, 'miscselectMask', 4)),
    attributes: r.hex(o.attributes, 'attributes', 16),
    attributesMask: r.hex(o.attributesMask, 'attributesMask', 16),
    mrSigner: r.hex(o.mrsigner, 'mrsigner', 32),
    isvProdId: r.uint(o.isvprodid, 'isvprodid', 0xffff),
    tcbLevels: [...levels].sort((a, b) => b.isvSvn - a.isvSvn || a.index - b.index),
  };
}

/**
 * issueDate ≤ time ≤ nextUpdate. Strict like Intel QVL / dcap-qvl: an expired QE identity is
 * refused (Open Enclave would ignore its nextUpdate).
 */
export function checkQeIdentityTime(id: QeIdentity, time: number): void {
  if (!(time >= id.issueDate)) {
    typeAError('TYPEA_QE_IDENTITY_NOT_YET_VALID', `QE identity not yet valid at ${iso(time)} (issueDate ${iso(id.issueDate)})`);
  }
  if (time > id.nextUpdate) {
    typeAError('TYPEA_QE_IDENTITY_EXPIRED', `QE identity expired at ${iso(id.nextUpdate)} (its nextUpdate; verification time ${iso(time)})`);
  }
}

/**
 * §8: the QE report body matches the identity (MISCSELECT and ATTRIBUTES under their masks,
 * MRSIGNER, ISVPRODID) and its ISVSVN falls in a TCB level. Returns that level.
 */
export function checkQeReport(id: QeIdentity, qe: ReportBody): QeTcbLevel {
  // The PCS miscselect hex is the u32 written big-endian; the report holds it little-endian (already decoded).
  if (((qe.miscSelect & id.miscSelectMask) >>> 0) !== id.miscSelect) {
    typeAError(
      'TYPEA_QE_MISCSELECT_MISMATCH',
      `QE MISCSELECT 0x${qe.miscSelect.toString(16).padStart(8, '0')} under mask 0x${id.miscSelectMask.toString(16).padStart(8, '0')} is not the identity's 0x${id.miscSelect.toString(16).padStart(8, '0')}`,
    );
  }
  for (let i = 0; i < 16; i++) {
    if ((qe.attributes[i]! & id.attributesMask[i]!) !== id.attributes[i]!) {
      typeAError(
        'TYPEA_QE_ATTRIBUTES_MISMATCH',
        `QE ATTRIBUTES ${hex(qe.attributes)} under mask ${hex(id.attributesMask)} are not the identity's ${hex(id.attributes)}`,
      );
    }
  }
  if (!Buffer.from(qe.mrSigner).equals(id.mrSigner)) {
    typeAError('TYPEA_QE_MRSIGNER_MISMATCH', `QE MRSIGNER ${hex(qe.mrSigner)}, expected ${hex(id.mrSigner)}`);
  }
  if (qe.isvProdId !== id.isvProdId) {
    typeAError('TYPEA_QE_ISVPRODID_MISMATCH', `QE ISVPRODID ${qe.isvProdId}, expected ${id.isvProdId}`);
  }
  for (const level of id.tcbLevels) if (qe.isvSvn >= level.isvSvn) return level;
  return typeAError(
    'TYPEA_QE_TCB_LEVEL_NOT_FOUND',
    `QE ISVSVN ${qe.isvSvn} is below every QE identity TCB level (lowest ${id.tcbLevels[id.tcbLevels.length - 1]?.isvSvn})`,
  );
}
