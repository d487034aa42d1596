// The request listener's two halves (src/server/app.ts): operation calls are
// routed on Node's own request objects, everything else by the Express
// application; what Express would have given the calls (the caller's address
// under TRUST_PROXY, the last-resort answer) they still get.
import { IncomingMessage } from 'node:http';
import pino from 'pino';
import { loadServiceModel } from '../../src/contract';
import { createOperations } from '../../src/operations';
import { createApp, type App } from '../../src/server';
import { startTestService, type TestService } from '../support/service';
import { call, envelope, httpPost, NS } from '../support/wire';

const FORWARDED = '198.51.100.7';

describe('the caller address an operation sees', () => {
  let service: TestService;
  afterEach(() => service.close());

  const callerOfLastCode = async () => (await service.store.admin.listAuthCodeMessages()).map((m) => m.callerAddress);

  it('is the socket address when no proxy is trusted, whatever X-Forwarded-For says', async () => {
    service = await startTestService({ trustProxy: false });
    const res = await httpPost(service.app, 'AuthCodeSending', 'AuthCode', { code: '482913', phone: '0944123456' }).set(
      'X-Forwarded-For',
      FORWARDED,
    );
    expect(res.status).toBe(200);
    expect(await callerOfLastCode()).toEqual([expect.stringMatching(/^(::ffff:)?127\.0\.0\.1$|^::1$/)]);
  });

  it('is the forwarded address when the proxy is trusted (SOAP and HTTP POST alike)', async () => {
    service = await startTestService({ trustProxy: 'loopback' });
    const soap = await call(service.app)
      .post('/AuthCodeSending.asmx')
      .set('Content-Type', 'text/xml; charset=utf-8')
      .set('SOAPAction', `"${NS}AuthCode"`)
      .set('X-Forwarded-For', FORWARDED)
      .send(envelope('1.1', 'AuthCode', { code: '482913', phone: '0944123456' }));
    expect(soap.status).toBe(200);
    const post = await httpPost(service.app, 'AuthCodeSending', 'AuthCode', {
      code: '482914',
      phone: '0944123457',
    }).set('X-Forwarded-For', `203.0.113.1, ${FORWARDED}`);
    expect(post.status).toBe(200);
    expect(await callerOfLastCode()).toEqual([FORWARDED, FORWARDED]);
  });
});

describe('which half answers', () => {
  let service: TestService;
  let app: App;
  const prototypes = new Map<string, unknown>();
  const routed = new Map<string, boolean>();
  let failNext = false;
  const errors: unknown[] = [];

  beforeAll(async () => {
    service = await startTestService();
    const logger = pino({ level: 'error' }, { write: (line: string) => errors.push(JSON.parse(line)) });
    app = createApp({
      endpoints: await loadServiceModel(NS),
      operations: createOperations(service.store, { phone: { defaultRegion: 'SY', allowedCountries: ['SY'] } }),
      logger,
      bodyLimit: 1048576,
      trustProxy: false,
      operationTimeoutMs: 5000,
      helpPages: true,
      observe: (req, res, _call, next) => {
        if (failNext) {
          failNext = false;
          throw new Error('observer broke');
        }
        res.on('finish', () => {
          prototypes.set(`${req.method} ${req.url}`, Object.getPrototypeOf(req));
          // What a router writes into the request it passes on.
          routed.set(`${req.method} ${req.url}`, 'baseUrl' in req || 'next' in req);
        });
        next();
      },
    });
  });
  afterAll(() => service.close());

  it('serves operation calls on Node’s own request objects, documents through Express', async () => {
    await call(app).get('/PushNotificationMobile.asmx/GetTokenDevice?id=dev-1001').expect(200);
    await httpPost(app, 'PushNotificationMobile', 'GetTokenDevice', { id: 'dev-1001' }).expect(200);
    await call(app)
      .post('/PushNotificationMobile.asmx')
      .set('Content-Type', 'text/xml; charset=utf-8')
      .set('SOAPAction', `"${NS}GetTokenDevice"`)
      .send(envelope('1.1', 'GetTokenDevice', { id: 'dev-1001' }))
      .expect(200);
    await call(app).get('/PushNotificationMobile.asmx?wsdl').expect(200);
    await call(app).get('/nowhere').expect(404);

    expect(prototypes.get('GET /PushNotificationMobile.asmx/GetTokenDevice?id=dev-1001')).toBe(
      IncomingMessage.prototype,
    );
    expect(prototypes.get('POST /PushNotificationMobile.asmx/GetTokenDevice')).toBe(IncomingMessage.prototype);
    expect(prototypes.get('POST /PushNotificationMobile.asmx')).toBe(IncomingMessage.prototype);
    expect(prototypes.get('GET /PushNotificationMobile.asmx?wsdl')).not.toBe(IncomingMessage.prototype);
    expect(prototypes.get('GET /nowhere')).not.toBe(IncomingMessage.prototype);
  });

  it('hands operation calls to the wire directly, through no router', async () => {
    await call(app).get('/PushNotificationMobile.asmx/GetTokenDevice?id=dev-1001').expect(200);
    await call(app)
      .post('/PushNotificationMobile.asmx')
      .set('Content-Type', 'text/xml; charset=utf-8')
      .set('SOAPAction', `"${NS}GetTokenDevice"`)
      .send(envelope('1.1', 'GetTokenDevice', { id: 'dev-1001' }))
      .expect(200);
    await call(app).get('/PushNotificationMobile.asmx?wsdl').expect(200);
    expect(routed.get('GET /PushNotificationMobile.asmx/GetTokenDevice?id=dev-1001')).toBe(false);
    expect(routed.get('POST /PushNotificationMobile.asmx')).toBe(false);
    expect(routed.get('GET /PushNotificationMobile.asmx?wsdl')).toBe(true);
  });

  it('answers a failure in front of the wire with the plain-text 500, logs it, and goes on serving', async () => {
    failNext = true;
    const res = await call(app).get('/PushNotificationMobile.asmx/GetTokenDevice?id=dev-1001');
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.body.toString()).toBe('Internal server error.\r\n');
    expect(errors).toEqual([
      expect.objectContaining({
        msg: 'unhandled request error',
        path: '/PushNotificationMobile.asmx/GetTokenDevice',
        err: expect.objectContaining({ message: 'observer broke' }),
      }),
    ]);
    await call(app).get('/PushNotificationMobile.asmx/GetTokenDevice?id=dev-1001').expect(200);
  });
});
