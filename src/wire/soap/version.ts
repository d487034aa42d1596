export type SoapVersion = '1.1' | '1.2';

export const ENVELOPE_NS: Readonly<Record<SoapVersion, string>> = {
  '1.1': 'http://schemas.xmlsoap.org/soap/envelope/',
  '1.2': 'http://www.w3.org/2003/05/soap-envelope',
};

export const CONTENT_TYPE: Readonly<Record<SoapVersion, string>> = {
  '1.1': 'text/xml; charset=utf-8',
  '1.2': 'application/soap+xml; charset=utf-8',
};

export function versionOfEnvelope(namespace: string): SoapVersion | null {
  if (namespace === ENVELOPE_NS['1.1']) return '1.1';
  if (namespace === ENVELOPE_NS['1.2']) return '1.2';
  return null;
}
