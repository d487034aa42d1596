// Request builders for the four bindings, written from the contract's text
// (docs/design.md#the-contract), not from our own code.
import request from 'supertest';
import type { App } from '../../src/server';

/** Buffers every answer as bytes, whatever its content type, so tests compare exact bodies. */
export function bytes(res: request.Response, done: (err: Error | null, body: Buffer) => void): void {
  const stream = res as unknown as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => done(null, Buffer.concat(chunks)));
}

export function call(app: App) {
  const agent = request(app);
  const wrap = (test: request.Test) => test.buffer(true).parse(bytes);
  return {
    get: (url: string) => wrap(agent.get(url)),
    post: (url: string) => wrap(agent.post(url)),
    put: (url: string) => wrap(agent.put(url)),
    delete: (url: string) => wrap(agent.delete(url)),
    head: (url: string) => agent.head(url),
  };
}

export const NS = 'http://tempuri.org/';
export const SOAP11_ENV = 'http://schemas.xmlsoap.org/soap/envelope/';
export const SOAP12_ENV = 'http://www.w3.org/2003/05/soap-envelope';
export const XML_DECL = '<?xml version="1.0" encoding="utf-8"?>';
const XSI_XSD = 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"';

export type Params = Record<string, string>;

function paramXml(params: Params): string {
  return Object.entries(params)
    .map(([k, v]) => `<${k}>${v.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</${k}>`)
    .join('');
}

export function envelope(version: '1.1' | '1.2', op: string, params: Params, ns = NS): string {
  const env = version === '1.1' ? SOAP11_ENV : SOAP12_ENV;
  return `${XML_DECL}<soap:Envelope xmlns:soap="${env}" ${XSI_XSD}><soap:Body><${op} xmlns="${ns}">${paramXml(params)}</${op}></soap:Body></soap:Envelope>`;
}

/** The answer envelope ASMX writes around a payload. */
export function answer(version: '1.1' | '1.2', payload: string): string {
  const env = version === '1.1' ? SOAP11_ENV : SOAP12_ENV;
  return `${XML_DECL}<soap:Envelope xmlns:soap="${env}" ${XSI_XSD}><soap:Body>${payload}</soap:Body></soap:Envelope>`;
}

export function soap11(app: App, endpoint: string, op: string, params: Params, ns = NS) {
  return call(app)
    .post(`/${endpoint}.asmx`)
    .set('Content-Type', 'text/xml; charset=utf-8')
    .set('SOAPAction', `"${ns}${op}"`)
    .send(envelope('1.1', op, params, ns));
}

export function soap12(app: App, endpoint: string, op: string, params: Params, ns = NS) {
  return call(app)
    .post(`/${endpoint}.asmx`)
    .set('Content-Type', `application/soap+xml; charset=utf-8; action="${ns}${op}"`)
    .send(envelope('1.2', op, params, ns));
}

export function httpGet(app: App, endpoint: string, op: string, params: Params) {
  return call(app).get(`/${endpoint}.asmx/${op}?${new URLSearchParams(params).toString()}`);
}

export function httpPost(app: App, endpoint: string, op: string, params: Params) {
  return call(app)
    .post(`/${endpoint}.asmx/${op}`)
    .set('Content-Type', 'application/x-www-form-urlencoded')
    .send(new URLSearchParams(params).toString());
}

/** The response body as exact text (supertest only buffers text for some types). */
export function bodyText(res: { body: unknown }): string {
  return Buffer.isBuffer(res.body) ? res.body.toString('utf8') : '';
}
