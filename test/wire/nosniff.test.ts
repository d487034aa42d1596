// Every answer the service writes says `X-Content-Type-Options: nosniff`, so
// that no browser reads a WSDL, an error text or the metrics as a page:
// documents, errors, calls, health, metrics and the admin API alike.
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { serveMetrics } from '../../src/server';
import { ADMIN_TOKEN, startOperatedService, type OperatedService } from '../support/operated-service';
import { storeVariants } from '../support/stores';
import { NS, envelope } from '../support/wire';

const [sqlite] = storeVariants();

let service: OperatedService;
beforeAll(async () => {
  service = await startOperatedService(sqlite);
});
afterAll(() => service.stop());

type Exchange = (app: OperatedService['app']) => request.Test;
const soap =
  (body: string, type = 'text/xml; charset=utf-8', action = `"${NS}GetTokenDevice"`): Exchange =>
  (app) =>
    request(app).post('/PushNotificationMobile.asmx').set('Content-Type', type).set('SOAPAction', action).send(body);

const answers: ReadonlyArray<readonly [string, number, Exchange]> = [
  ['?wsdl', 200, (app) => request(app).get('/PushNotificationMobile.asmx?wsdl')],
  ['?disco', 200, (app) => request(app).get('/PushNotificationMobile.asmx?disco')],
  ['?wsdl with a value', 500, (app) => request(app).get('/PushNotificationMobile.asmx?wsdl=x')],
  ['a help page', 200, (app) => request(app).get('/PushNotificationMobile.asmx')],
  ['the list of endpoints', 200, (app) => request(app).get('/')],
  ['an unknown path', 404, (app) => request(app).get('/nothing-here')],
  ['a method /X.asmx does not take', 405, (app) => request(app).put('/PushNotificationMobile.asmx')],
  ['/metrics', 200, (app) => request(app).get('/metrics')],
  ['/healthz', 200, (app) => request(app).get('/healthz')],
  ['/readyz', 200, (app) => request(app).get('/readyz')],
  [
    'the admin API',
    200,
    (app) => request(app).get('/admin/api/v1/outbox/stats').set('Authorization', `Bearer ${ADMIN_TOKEN}`),
  ],
  ['the admin API without its token', 401, (app) => request(app).get('/admin/api/v1/outbox/stats')],
  ['a SOAP 1.1 result', 200, soap(envelope('1.1', 'GetTokenDevice', { id: 'dev-1001' }))],
  [
    'a SOAP 1.2 result',
    200,
    soap(envelope('1.2', 'GetTokenDevice', { id: 'dev-1001' }), 'application/soap+xml; charset=utf-8'),
  ],
  ['a SOAP fault for malformed XML', 400, soap('<soap:Envelope')],
  [
    'a SOAP fault from routing',
    500,
    soap(envelope('1.1', 'GetTokenDevice', { id: 'dev-1001' }), 'text/xml', '"urn:no-such-action"'),
  ],
  ['a content type that is not SOAP', 415, soap(envelope('1.1', 'GetTokenDevice', { id: 'dev-1001' }), 'text/plain')],
  ['an HTTP GET result', 200, (app) => request(app).get('/PushNotificationMobile.asmx/GetTokenDevice?id=dev-1001')],
  ['an HTTP GET error', 500, (app) => request(app).get('/PushNotificationMobile.asmx/GetTokenDevice')],
  [
    'an HTTP POST void result',
    200,
    (app) =>
      request(app).post('/ReadNoteFromApp.asmx/UpdateNoteState').type('form').send('STDid=1001&note_type=behaviour'),
  ],
];

describe('X-Content-Type-Options: nosniff', () => {
  it.each(answers)('on %s', async (_name, status, exchange) => {
    const res = await exchange(service.app);
    expect(res.status).toBe(status);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('on /metrics served on a port of its own', async () => {
    const server = await serveMetrics(service.metrics, 0, '127.0.0.1');
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for (const [path, status] of [
        ['/metrics', 200],
        ['/other', 404],
      ] as const) {
        const res = await request(base).get(path);
        expect(res.status).toBe(status);
        expect(res.headers['x-content-type-options']).toBe('nosniff');
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
