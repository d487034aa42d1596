// A control character in a value that an error text repeats
// (docs/design.md#a-control-character-in-an-echoed-value): over HTTP GET and
// POST a `%00`, `%0D%0A` or `%1B` could reach the plain-text 500 body as it
// was sent, and a SOAPAction's `%0A` a faultstring. Each is written U+FFFD,
// on both stores (an unknown student's id is echoed after the store is asked).
import { startOperatedService, type OperatedService } from '../support/operated-service';
import { storeVariants } from '../support/stores';
import { bodyText, call, envelope, httpGet, httpPost, NS } from '../support/wire';

/** Every control character but one of each run, and the three a caller types most. */
const CONTROLS = ['\0', '\r\n', '\t', '\u001B', '\u007F', '\u0085'];
/** Any C0, DEL or C1 character. */
// eslint-disable-next-line no-control-regex
const ANY_CONTROL = /[\u0000-\u001F\u007F-\u009F]/;

/** The body with the line break every plain-text error ends with, and the `\r\n` of .NET's own texts, taken out. */
function callerPart(text: string): string {
  return text.replace(/\r\n$/, '').replace('\r\nParameter name: ', ' Parameter name: ');
}

function marked(value: string): string {
  return value.replace(new RegExp(ANY_CONTROL.source, 'g'), '\uFFFD');
}

describe.each(storeVariants())('a control character echoed in an error text on $name', (variant) => {
  let service: OperatedService;
  beforeAll(async () => {
    service = await startOperatedService(variant);
  });
  afterAll(() => service.stop());

  describe.each([
    ['HTTP GET', httpGet],
    ['HTTP POST', httpPost],
  ])('over %s', (_binding, send) => {
    it.each(CONTROLS.map((c) => [JSON.stringify(c), c] as const))('an unknown student id holding %s', async (_l, c) => {
      const res = await send(service.app, 'NotificationNotes', 'SendNotificationType', {
        id: `x${c}y`,
        baseUrlSchool: 'https://school-a.example',
        TypeNotfication: 'absence',
      });
      expect(res.status).toBe(500);
      expect(bodyText(res)).toBe(`No student with id ${marked(`x${c}y`)}.\r\n`);
    });

    it.each(CONTROLS.map((c) => [JSON.stringify(c), c] as const))('a school holding %s', async (_l, c) => {
      const res = await send(service.app, 'NotificationNotes', 'SendNotificationType', {
        id: '1001',
        baseUrlSchool: `https://other${c}.example`,
        TypeNotfication: 'absence',
      });
      expect(res.status).toBe(500);
      expect(bodyText(res)).toBe(
        `Student 1001 does not belong to the school ${marked(`https://other${c}.example`)}.\r\n`,
      );
    });

    it.each(CONTROLS.map((c) => [JSON.stringify(c), c] as const))('a show_active holding %s', async (_l, c) => {
      const res = await send(service.app, 'NotificationNotes', 'GetStudentSchool', {
        school_base_url: 'https://school-a.example',
        show_active: `1${c}`,
      });
      expect(res.status).toBe(500);
      expect(callerPart(bodyText(res))).not.toMatch(ANY_CONTROL);
      expect(bodyText(res)).toContain(`Cannot convert ${marked(`1${c}`)} to System.Char.`);
    });

    it.each(CONTROLS.map((c) => [JSON.stringify(c), c] as const))(
      'a phone number holding %s, masked as well',
      async (_l, c) => {
        const res = await send(service.app, 'AuthCodeSending', 'AuthCode', {
          code: '1234',
          phone: `0501234567${c}99`,
        });
        expect(res.status).toBe(500);
        expect(bodyText(res)).not.toMatch(/\d{4}/);
        expect(callerPart(bodyText(res))).not.toMatch(ANY_CONTROL);
      },
    );
  });

  it.each(CONTROLS.map((c) => [JSON.stringify(c), c] as const))('an operation name holding %s', async (_l, c) => {
    const escaped = encodeURIComponent(c);
    for (const url of [
      `/PushNotificationMobile.asmx/No${escaped}pe?id=1`,
      `/PushNotificationMobile.asmx/gettokendevice${escaped}?id=1`,
    ]) {
      const res = await call(service.app).get(url);
      expect(res.status).toBe(500);
      expect(callerPart(bodyText(res))).not.toMatch(ANY_CONTROL);
    }
    const named = await call(service.app).get(`/PushNotificationMobile.asmx/No${escaped}pe?id=1`);
    expect(bodyText(named)).toBe(`No${marked(c)}pe Web Service method name is not valid.\r\n`);
    const verb = await call(service.app).put(`/PushNotificationMobile.asmx/No${escaped}pe`);
    expect(bodyText(verb)).toBe(
      `Request format is unrecognized for URL unexpectedly ending in &#39;/No${marked(c)}pe&#39;.\r\n`,
    );
  });

  it('a POST content type holding a tab', async () => {
    const res = await call(service.app)
      .post('/PushNotificationMobile.asmx/GetTokenDevice')
      .set('Content-Type', 'text/plain;\tx=1')
      .send('id=dev-1001');
    expect(bodyText(res)).toBe('Request format is invalid: text/plain;\uFFFDx=1.\r\n');
  });

  it.each(CONTROLS.map((c) => [JSON.stringify(c), c] as const))(
    'a SOAP action holding %s, in the faultstring',
    async (_l, c) => {
      const action = `${NS}No${encodeURIComponent(c)}pe`;
      const soap11 = await call(service.app)
        .post('/PushNotificationMobile.asmx')
        .set('Content-Type', 'text/xml; charset=utf-8')
        .set('SOAPAction', `"${action}"`)
        .send(envelope('1.1', 'GetTokenDevice', { id: 'dev-1001' }));
      const soap12 = await call(service.app)
        .post('/PushNotificationMobile.asmx')
        .set('Content-Type', `application/soap+xml; charset=utf-8; action="${action}"`)
        .send(envelope('1.2', 'Nope', { id: 'dev-1001' }));
      expect(bodyText(soap11)).toContain(
        `<faultstring>Server did not recognize the value of HTTP Header SOAPAction: ${NS}No${marked(c)}pe.</faultstring>`,
      );
      expect(bodyText(soap12)).toContain(
        `<soap:Text xml:lang="en">Unable to handle request. The action '${NS}No${marked(c)}pe' was not recognized.</soap:Text>`,
      );
    },
  );

  it('an envelope namespace holding a line break, and a charset holding a tab', async () => {
    const wrongEnvelope = await call(service.app)
      .post('/PushNotificationMobile.asmx')
      .set('Content-Type', 'text/xml; charset=utf-8')
      .set('SOAPAction', `"${NS}GetTokenDevice"`)
      .send('<soap:Envelope xmlns:soap="urn:x&#10;y"><soap:Body /></soap:Envelope>');
    expect(bodyText(wrongEnvelope)).toContain('Envelope namespace urn:x\uFFFDy was unexpected.');
    const charset = await call(service.app)
      .post('/PushNotificationMobile.asmx')
      .set('Content-Type', 'text/xml; charset="x\ty"')
      .send(envelope('1.1', 'GetTokenDevice', { id: 'dev-1001' }));
    expect(charset.status).toBe(415);
    expect(bodyText(charset)).toContain("the charset 'x\uFFFDy' cannot be read.");
  });
});
