// Every operation over every binding, against a real SQLite store: exact
// status, headers and bytes as an ASMX service sends them.
import type { Response } from 'supertest';
import { startTestService, type TestService } from '../support/service';
import { XML_DECL, answer, bodyText, httpGet, httpPost, soap11, soap12, type Params } from '../support/wire';

let service: TestService;
beforeEach(async () => {
  service = await startTestService();
});
afterEach(async () => {
  await service.close();
});

type Binding = 'SOAP 1.1' | 'SOAP 1.2' | 'HTTP GET' | 'HTTP POST';
const BINDINGS: Binding[] = ['SOAP 1.1', 'SOAP 1.2', 'HTTP GET', 'HTTP POST'];
const XSD_XSI = 'xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"';

/** Calls an operation; `soapParams` differ from `httpParams` only for the char (its code in SOAP). */
function callOp(
  binding: Binding,
  endpoint: string,
  op: string,
  httpParams: Params,
  soapParams: Params = httpParams,
): Promise<Response> {
  switch (binding) {
    case 'SOAP 1.1':
      return soap11(service.app, endpoint, op, soapParams);
    case 'SOAP 1.2':
      return soap12(service.app, endpoint, op, soapParams);
    case 'HTTP GET':
      return httpGet(service.app, endpoint, op, httpParams);
    case 'HTTP POST':
      return httpPost(service.app, endpoint, op, httpParams);
  }
}

function isSoap(binding: Binding): binding is 'SOAP 1.1' | 'SOAP 1.2' {
  return binding.startsWith('SOAP');
}

function expectSoapAnswer(res: Response, binding: 'SOAP 1.1' | 'SOAP 1.2', payload: string): void {
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe(
    binding === 'SOAP 1.1' ? 'text/xml; charset=utf-8' : 'application/soap+xml; charset=utf-8',
  );
  expect(res.headers['cache-control']).toBe('private, max-age=0');
  const expected = answer(binding === 'SOAP 1.1' ? '1.1' : '1.2', payload);
  expect(bodyText(res)).toBe(expected);
  expect(res.headers['content-length']).toBe(String(Buffer.byteLength(expected)));
}

function expectXmlAnswer(res: Response, body: string): void {
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('text/xml; charset=utf-8');
  expect(res.headers['cache-control']).toBe('private, max-age=0');
  expect(bodyText(res)).toBe(body);
}

/** Void: an empty response element in SOAP; 200, no body and no Content-Type over GET/POST. */
function expectVoid(res: Response, binding: Binding, op: string): void {
  if (isSoap(binding)) {
    expectSoapAnswer(res, binding, `<${op}Response xmlns="http://tempuri.org/" />`);
    return;
  }
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBeUndefined();
  expect(res.headers['content-length']).toBe('0');
  expect(bodyText(res)).toBe('');
}

describe.each(BINDINGS)('%s', (binding) => {
  describe('GetTokenDevice', () => {
    const get = (id: string) => callOp(binding, 'PushNotificationMobile', 'GetTokenDevice', { id });

    it('answers the token as one string', async () => {
      const res = await get('dev-1001');
      if (isSoap(binding)) {
        expectSoapAnswer(
          res,
          binding,
          '<GetTokenDeviceResponse xmlns="http://tempuri.org/"><GetTokenDeviceResult>fcm:AAAA-1001</GetTokenDeviceResult></GetTokenDeviceResponse>',
        );
      } else {
        expectXmlAnswer(res, `${XML_DECL}\r\n<string xmlns="http://tempuri.org/">fcm:AAAA-1001</string>`);
      }
    });

    it('escapes & < > in the token', async () => {
      const res = await get('dev-2001');
      const text = 'fcm:BBBB&amp;&lt;2001&gt;';
      if (isSoap(binding)) {
        expectSoapAnswer(
          res,
          binding,
          `<GetTokenDeviceResponse xmlns="http://tempuri.org/"><GetTokenDeviceResult>${text}</GetTokenDeviceResult></GetTokenDeviceResponse>`,
        );
      } else {
        expectXmlAnswer(res, `${XML_DECL}\r\n<string xmlns="http://tempuri.org/">${text}</string>`);
      }
    });

    it.each(['dev-1003', 'no-such-device'])('answers the null string for %s', async (id) => {
      const res = await get(id);
      if (isSoap(binding)) {
        expectSoapAnswer(res, binding, '<GetTokenDeviceResponse xmlns="http://tempuri.org/" />');
      } else {
        expectXmlAnswer(res, `${XML_DECL}\r\n<string ${XSD_XSI} xsi:nil="true" xmlns="http://tempuri.org/" />`);
      }
    });
  });

  describe('GetStudentSchool', () => {
    const list = (school: string, active: string) =>
      callOp(
        binding,
        'NotificationNotes',
        'GetStudentSchool',
        { school_base_url: school, show_active: active },
        {
          school_base_url: school,
          show_active: String(active.charCodeAt(0)),
        },
      );

    it('lists the active students by full name then id, with Arabic and escaped names', async () => {
      const res = await list('HTTPS://School-A.example/', '1');
      const students = [
        ['1001', 'Ahmad Ali', 'dev-1001'],
        ['1005', 'Ahmad Ali', null],
        ['1003', `O'Brien &amp; &lt;Sons&gt; "Q"`, 'dev-1003'],
        ['1002', 'أحمد علي', 'dev-1002'],
      ] as const;
      if (isSoap(binding)) {
        const items = students
          .map(
            ([id, name, device]) =>
              `<StudentInfo><id_student>${id}</id_student><fullName>${name}</fullName>${device ? `<id_device>${device}</id_device>` : ''}<ShowActive>1</ShowActive></StudentInfo>`,
          )
          .join('');
        expectSoapAnswer(
          res,
          binding,
          `<GetStudentSchoolResponse xmlns="http://tempuri.org/"><GetStudentSchoolResult>${items}</GetStudentSchoolResult></GetStudentSchoolResponse>`,
        );
      } else {
        const items = students
          .map(
            ([id, name, device]) =>
              `\r\n  <StudentInfo>\r\n    <id_student>${id}</id_student>\r\n    <fullName>${name}</fullName>${device ? `\r\n    <id_device>${device}</id_device>` : ''}\r\n    <ShowActive>1</ShowActive>\r\n  </StudentInfo>`,
          )
          .join('');
        expectXmlAnswer(
          res,
          `${XML_DECL}\r\n<ArrayOfStudentInfo ${XSD_XSI} xmlns="http://tempuri.org/">${items}\r\n</ArrayOfStudentInfo>`,
        );
      }
    });

    it('lists the inactive students for show_active 0', async () => {
      const res = await list('https://school-a.example', '0');
      expect(bodyText(res)).toContain('<id_student>1004</id_student>');
      expect(bodyText(res)).not.toContain('<id_student>1001</id_student>');
    });

    it('answers an empty list for an unknown school', async () => {
      const res = await list('https://nowhere.example', '1');
      if (isSoap(binding)) {
        expectSoapAnswer(
          res,
          binding,
          '<GetStudentSchoolResponse xmlns="http://tempuri.org/"><GetStudentSchoolResult /></GetStudentSchoolResponse>',
        );
      } else {
        expectXmlAnswer(res, `${XML_DECL}\r\n<ArrayOfStudentInfo ${XSD_XSI} xmlns="http://tempuri.org/" />`);
      }
    });
  });

  describe('AuthCode', () => {
    it('queues the code for the normalised number and answers void', async () => {
      const res = await callOp(binding, 'AuthCodeSending', 'AuthCode', { code: '482913', phone: '0944 123 456' });
      expectVoid(res, binding, 'AuthCode');
      const queued = await service.store.admin.listAuthCodeMessages();
      expect(queued).toHaveLength(1);
      expect(queued[0]).toMatchObject({ phone: '+963944123456', status: 'queued' });
    });

    it('refuses an invalid phone number as the caller’s mistake', async () => {
      const res = await callOp(binding, 'AuthCodeSending', 'AuthCode', { code: '482913', phone: '12' });
      expect(res.status).toBe(500);
      if (isSoap(binding)) {
        expect(bodyText(res)).toContain(
          binding === 'SOAP 1.1' ? '<faultcode>soap:Client</faultcode>' : '<soap:Value>soap:Sender</soap:Value>',
        );
        expect(bodyText(res)).toContain('The phone number 12 is not a valid number.');
      } else {
        expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
        expect(bodyText(res)).toBe('The phone number 12 is not a valid number.\r\n');
      }
      expect(await service.store.admin.listAuthCodeMessages()).toHaveLength(0);
    });
  });

  describe('SendNotificationType', () => {
    it('queues a push to the student’s device and answers void', async () => {
      const res = await callOp(binding, 'NotificationNotes', 'SendNotificationType', {
        id: '1002',
        baseUrlSchool: 'https://school-a.example/',
        TypeNotfication: 'absence',
      });
      expectVoid(res, binding, 'SendNotificationType');
      const queued = await service.store.admin.listPushNotifications();
      expect(queued).toHaveLength(1);
      expect(queued[0]).toMatchObject({ deviceId: 'dev-1002', studentId: '1002', type: 'absence', status: 'queued' });
      expect(queued[0].body).toContain('أحمد علي');
    });

    it('refuses a student of another school', async () => {
      const res = await callOp(binding, 'NotificationNotes', 'SendNotificationType', {
        id: '2001',
        baseUrlSchool: 'https://school-a.example',
        TypeNotfication: 'absence',
      });
      expect(res.status).toBe(500);
      expect(bodyText(res)).toContain('Student 2001 does not belong to the school https://school-a.example.');
      expect(await service.store.admin.listPushNotifications()).toHaveLength(0);
    });
  });

  describe('GetStudentsAudtiNote', () => {
    it('answers void', async () => {
      const res = await callOp(binding, 'GetStudentsAudit', 'GetStudentsAudtiNote', {
        SubjectID: 'MATH',
        Class_id: '7A',
      });
      expectVoid(res, binding, 'GetStudentsAudtiNote');
    });
  });

  describe('UpdateNoteState', () => {
    it('answers void and marks that student’s notes of that type read, and no others', async () => {
      const res = await callOp(binding, 'ReadNoteFromApp', 'UpdateNoteState', { STDid: '1001', note_type: 'audit' });
      expectVoid(res, binding, 'UpdateNoteState');
      const audit = await service.store.records.listAuditNotes('MATH', '7A');
      expect(audit.map((n) => [n.id, n.studentId, n.state])).toEqual([
        ['n2', '1002', 'unread'],
        ['n1', '1001', 'read'],
      ]);
    });
  });

  describe('GetStudentsAbcenceByID', () => {
    it('answers void and marks the absences seen', async () => {
      const res = await callOp(binding, 'GetStudentsAbsence', 'GetStudentsAbcenceByID', { STDid: '1001' });
      expectVoid(res, binding, 'GetStudentsAbcenceByID');
      const again = await service.store.records.listAbsencesMarkSeen('1001');
      expect(again.map((a) => [a.id, a.seen])).toEqual([
        ['a2', true],
        ['a1', true],
      ]);
    });
  });
});
