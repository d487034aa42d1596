// A caller the policy refuses for its network or its credentials is answered
// before its body is read (docs/security.md#refused-before-the-body): each
// test sends the headers and the first bytes of a large body, never the rest,
// and gets its 403 or 401. Reading the body first, the service waited for
// bytes that never came and answered nothing.
import net from 'node:net';
import { listenOnLoopback, type LoopbackListener } from '../support/service';
import { OPEN_PERSONAL_READS, PASSWORDS, basic, startWithPolicy, usersYaml, type ServiceWithPolicy } from './support';

const NS = 'http://tempuri.org/';
const SOAP11 = 'http://schemas.xmlsoap.org/soap/envelope/';
const SOAP12 = 'http://www.w3.org/2003/05/soap-envelope';
const DECLARED = 900_000;

const POLICY = `${usersYaml()}networks:
  schools: ["10.20.0.0/16"]
endpoints:
  NotificationNotes.asmx:
    default: { allow: [schools], auth: basic }
  PushNotificationMobile.asmx:
    GetTokenDevice: { limit: 100/1m }
  GetStudentsAbsence.asmx:
    GetStudentsAbcenceByID: { allow: [schools] }
${OPEN_PERSONAL_READS(['GetStudentsAudit', 'ReadNoteFromApp'])}`;

let withPolicy: ServiceWithPolicy;
let listener: LoopbackListener;
beforeAll(async () => {
  withPolicy = await startWithPolicy(POLICY);
  listener = await listenOnLoopback(withPolicy.service.app);
});
afterAll(async () => {
  await listener.close();
  await withPolicy.close();
});

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Sends the head and `start` of a body declared DECLARED bytes long, and waits for an answer (never sending the rest). */
function sendStart(path: string, headers: Record<string, string>, start: string, timeoutMs = 5000): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(listener.port, '127.0.0.1');
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms while the body was unfinished`));
    }, timeoutMs);
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine, ...lines] = received.subarray(0, end).toString('latin1').split('\r\n');
      const parsed = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      const length = Number(parsed['content-length'] ?? 0);
      if (received.length < end + 4 + length) return;
      clearTimeout(timer);
      socket.destroy();
      resolve({
        status: Number(statusLine.split(' ')[1]),
        headers: parsed,
        body: received.subarray(end + 4, end + 4 + length).toString('utf8'),
      });
    });
    const head = Object.entries({ Host: 'localhost', 'Content-Length': String(DECLARED), ...headers })
      .map(([name, value]) => `${name}: ${value}`)
      .join('\r\n');
    socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n\r\n${start}`);
  });
}

function envelopeStart(version: '1.1' | '1.2', element: string, ns = NS): string {
  const env = version === '1.1' ? SOAP11 : SOAP12;
  return `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${env}"><soap:Body><${element} xmlns="${ns}"><school_base_url>${'x'.repeat(20_000)}`;
}

const outside = { 'X-Forwarded-For': '192.0.2.50' };
const inside = { 'X-Forwarded-For': '10.20.1.1' };

describe('refused for its network: 403 before the body', () => {
  test('SOAP 1.1 naming its operation in SOAPAction', async () => {
    const answer = await sendStart(
      '/NotificationNotes.asmx',
      { ...outside, 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: `"${NS}GetStudentSchool"` },
      envelopeStart('1.1', 'GetStudentSchool'),
    );
    expect(answer.status).toBe(403);
    expect(answer.body).toBe('Forbidden: GetStudentSchool may not be called from this address.\r\n');
    expect(answer.headers.connection).toBe('close');
  });

  test('SOAP 1.2 naming its operation in the action parameter', async () => {
    const answer = await sendStart(
      '/GetStudentsAbsence.asmx',
      { ...outside, 'Content-Type': `application/soap+xml; charset=utf-8; action="${NS}GetStudentsAbcenceByID"` },
      envelopeStart('1.2', 'GetStudentsAbcenceByID'),
    );
    expect(answer.status).toBe(403);
    expect(answer.body).toBe('Forbidden: GetStudentsAbcenceByID may not be called from this address.\r\n');
  });

  test('HTTP POST, the operation in the path', async () => {
    const answer = await sendStart(
      '/GetStudentsAbsence.asmx/GetStudentsAbcenceByID',
      { ...outside, 'Content-Type': 'application/x-www-form-urlencoded' },
      `STDid=${'1'.repeat(10_000)}`,
    );
    expect(answer.status).toBe(403);
  });

  test('SOAP 1.2 without an action: the body element, found in the first bytes, names the operation', async () => {
    const answer = await sendStart(
      '/GetStudentsAbsence.asmx',
      { ...outside, 'Content-Type': 'application/soap+xml; charset=utf-8' },
      envelopeStart('1.2', 'GetStudentsAbcenceByID'),
    );
    expect(answer.status).toBe(403);
    expect(answer.body).toBe('Forbidden: GetStudentsAbcenceByID may not be called from this address.\r\n');
  });

  test('an endpoint no operation of which lets the caller in, whatever the body says', async () => {
    const answer = await sendStart(
      '/NotificationNotes.asmx',
      { ...outside, 'Content-Type': 'application/soap+xml; charset=utf-8' },
      '<<<not xml',
    );
    expect(answer.status).toBe(403);
    expect(answer.body).toBe('Forbidden: NotificationNotes.asmx may not be called from this address.\r\n');
  });
});

describe('refused for its credentials: 401 before the body', () => {
  test('missing credentials', async () => {
    const answer = await sendStart(
      '/NotificationNotes.asmx',
      { ...inside, 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: `"${NS}GetStudentSchool"` },
      envelopeStart('1.1', 'GetStudentSchool'),
    );
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toBe('Basic realm="Student Notification Service", charset="UTF-8"');
  });

  test('a wrong password', async () => {
    const answer = await sendStart(
      '/NotificationNotes.asmx/GetStudentSchool',
      {
        ...inside,
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: basic('sis-alnoor', 'not the password'),
      },
      `school_base_url=${'x'.repeat(10_000)}`,
    );
    expect(answer.status).toBe(401);
  });

  // svcutil asks POST /X.asmx for metadata (WS-MetadataExchange), naming no operation of the service; IIS asks for
  // Basic before anything else, where ASMX itself would answer a MustUnderstand fault.
  test('a metadata request that names no operation, on an endpoint that needs Basic', async () => {
    const mex =
      `<s:Envelope xmlns:s="${SOAP12}" xmlns:a="http://www.w3.org/2005/08/addressing"><s:Header>` +
      '<a:Action s:mustUnderstand="1">http://schemas.xmlsoap.org/ws/2004/09/transfer/Get</a:Action>' +
      '<a:To s:mustUnderstand="1">http://localhost/NotificationNotes.asmx</a:To></s:Header><s:Body/></s:Envelope>';
    const answer = await sendStart(
      '/NotificationNotes.asmx',
      {
        ...inside,
        'Content-Type':
          'application/soap+xml; charset=utf-8; action="http://schemas.xmlsoap.org/ws/2004/09/transfer/Get"',
      },
      mex,
    );
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toMatch(/^Basic realm=/);
  });
});

describe('callers the policy lets in', () => {
  test('are read and answered as before, large bodies too', async () => {
    const res = await fetch(`${listener.base}/NotificationNotes.asmx`, {
      method: 'POST',
      headers: {
        ...inside,
        'Content-Type': 'text/xml; charset=utf-8',
        SOAPAction: `"${NS}GetStudentSchool"`,
        Authorization: basic('sis-alnoor', PASSWORDS['sis-alnoor']),
      },
      body:
        `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${SOAP11}"><soap:Header><Pad xmlns="urn:pad">${'p'.repeat(200_000)}</Pad></soap:Header>` +
        `<soap:Body><GetStudentSchool xmlns="${NS}"><school_base_url>https://school-a.example</school_base_url><show_active>49</show_active></GetStudentSchool></soap:Body></soap:Envelope>`,
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Ahmad Ali');
  });

  test('a body whose element is not found in the first 64 KB is read whole and judged by the endpoint', async () => {
    const body =
      `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${SOAP12}"><soap:Header><Pad xmlns="urn:pad">${'p'.repeat(100_000)}</Pad></soap:Header>` +
      `<soap:Body><GetStudentsAbcenceByID xmlns="${NS}"><STDid>1001</STDid></GetStudentsAbcenceByID></soap:Body></soap:Envelope>`;
    const fromOutside = await fetch(`${listener.base}/GetStudentsAbsence.asmx`, {
      method: 'POST',
      headers: { ...outside, 'Content-Type': 'application/soap+xml; charset=utf-8' },
      body,
    });
    expect(fromOutside.status).toBe(403);
    const fromInside = await fetch(`${listener.base}/GetStudentsAbsence.asmx`, {
      method: 'POST',
      headers: { ...inside, 'Content-Type': 'application/soap+xml; charset=utf-8' },
      body,
    });
    expect(fromInside.status).toBe(200);
  });
});
