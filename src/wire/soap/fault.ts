import type { SoapVersion } from './version';

/** Fault codes by their SOAP 1.1 name; SOAP 1.2 spells Client and Server as Sender and Receiver. */
export type FaultCode = 'Client' | 'Server' | 'MustUnderstand' | 'VersionMismatch';

export interface SoapFault {
  readonly code: FaultCode;
  readonly message: string;
  /** HTTP status: 500 for every fault, as ASMX, except 400 when the request could not be read as XML. */
  readonly status: 400 | 500;
  /** Header faults (MustUnderstand) carry no detail element. */
  readonly detail: boolean;
  /** The SOAP 1.2 Upgrade header that answers an unknown envelope. */
  readonly upgrade?: boolean;
}

export function clientFault(message: string, status: 400 | 500 = 500): SoapFault {
  return { code: 'Client', message, status, detail: true };
}

export function serverFault(message: string): SoapFault {
  return { code: 'Server', message, status: 500, detail: true };
}

export const SOAP12_CODE: Readonly<Record<FaultCode, string>> = {
  Client: 'Sender',
  Server: 'Receiver',
  MustUnderstand: 'MustUnderstand',
  VersionMismatch: 'VersionMismatch',
};

/** The code as written in a fault of that version (with the envelope's `soap` prefix). */
export function faultCodeName(code: FaultCode, version: SoapVersion): string {
  return `soap:${version === '1.1' ? code : SOAP12_CODE[code]}`;
}
