/** A notarizer's GET /info record of kind typeA (`reportType` "sgx", or "typeA" as the spec writes it). */
import { uniqueIdFromLeo } from '../../../aleo/leoValue.js';
import { equalBytes } from '../../../bytes.js';
import type { InfoReader, KindNotarizerInfo } from '../types.js';

export interface TypeAInfo {
  info: {
    securityVersion: number;
    debug: boolean;
    uniqueId: string;
    signerId: string;
    productId: string;
    tcbStatus: number;
    ledgerProductId?: string;
    ledger: { uniqueId: string; signerId: string; productId: string };
  };
  /** MRENCLAVE bytes (the verifier's `uniqueIdTarget`). */
  uniqueId: Uint8Array;
}

export interface TypeAInfoRecord extends TypeAInfo {
  kind: 'typeA';
  /** Wire value of reportType (`sgx`, or `typeA` as the spec writes it). */
  reportType: string;
  enclaveUrl: string;
  signerPubKey: string;
}

const U128_TEXT = /^\d{1,39}u128$/;

export const typeANotarizerInfo: KindNotarizerInfo<TypeAInfo, Uint8Array> = {
  read(info, ledgerRaw, r: InfoReader) {
    const uniqueId = r.b64(info, 'uniqueId', 32, 'info.uniqueId');
    r.b64(info, 'signerId', 32, 'info.signerId');
    r.b64(info, 'productId', 16, 'info.productId');
    if (typeof info.debug !== 'boolean') r.bad('info.debug must be a boolean');
    const ledger = {
      uniqueId: r.str(ledgerRaw, 'uniqueId', 'info.aleo.uniqueId'),
      signerId: r.str(ledgerRaw, 'signerId', 'info.aleo.signerId'),
      productId: r.str(ledgerRaw, 'productId', 'info.aleo.productId'),
    };
    let fromLedger: Uint8Array;
    try {
      fromLedger = uniqueIdFromLeo(ledger.uniqueId);
      uniqueIdFromLeo(ledger.signerId);
    } catch (e) {
      r.bad(`info.aleo ids are not ledger structs: ${(e as Error).message}`);
    }
    if (!equalBytes(fromLedger, uniqueId)) r.bad('info.aleo.uniqueId does not encode info.uniqueId');
    if (!U128_TEXT.test(ledger.productId)) r.bad('info.aleo.productId is not a u128 value');
    const rec: TypeAInfo = {
      info: {
        securityVersion: r.num(info, 'securityVersion', 'info.securityVersion'),
        debug: info.debug,
        uniqueId: info.uniqueId as string,
        signerId: info.signerId as string,
        productId: info.productId as string,
        tcbStatus: r.num(info, 'tcbStatus', 'info.tcbStatus'),
        ledger,
      },
      uniqueId,
    };
    if (typeof info.ledgerProductId === 'string') rec.info.ledgerProductId = info.ledgerProductId;
    return rec;
  },
  target: (rec) => rec.uniqueId,
};
