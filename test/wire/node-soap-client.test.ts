// A real SOAP client, node-soap's, generated from our ?wsdl over a real
// socket, calls all seven operations in SOAP 1.1 and SOAP 1.2.
import { createClientAsync, type Client } from 'soap';
import { listenOnLoopback, startTestService, type LoopbackListener, type TestService } from '../support/service';

let service: TestService;
let server: LoopbackListener;
let base: string;

beforeAll(async () => {
  service = await startTestService();
  server = await listenOnLoopback(service.app);
  base = server.base;
});
afterAll(async () => {
  await server.close();
  await service.close();
});

type AsyncMethod = (args: Record<string, unknown>) => Promise<[unknown, string, unknown, string]>;

async function clientFor(endpoint: string, soap12: boolean): Promise<Client> {
  return createClientAsync(`${base}/${endpoint}.asmx?wsdl`, { forceSoap12Headers: soap12 });
}

function method(client: Client, name: string): AsyncMethod {
  return (client as unknown as Record<string, AsyncMethod>)[`${name}Async`].bind(client);
}

describe.each([
  ['SOAP 1.1', false],
  ['SOAP 1.2', true],
])('node-soap client over %s', (_label, soap12) => {
  it('GetTokenDevice: a token and the null string', async () => {
    const client = await clientFor('PushNotificationMobile', soap12);
    const [found] = await method(client, 'GetTokenDevice')({ id: 'dev-1001' });
    expect(found).toEqual({ GetTokenDeviceResult: 'fcm:AAAA-1001' });
    const [none] = await method(client, 'GetTokenDevice')({ id: 'dev-1003' });
    expect(none).toBeNull();
  });

  it('GetStudentSchool: the records field by field, char sent as its code', async () => {
    const client = await clientFor('NotificationNotes', soap12);
    const [result] = await method(
      client,
      'GetStudentSchool',
    )({ school_base_url: 'https://school-a.example', show_active: 49 });
    const students = (result as { GetStudentSchoolResult: { StudentInfo: Record<string, string>[] } })
      .GetStudentSchoolResult.StudentInfo;
    expect(students.map((s) => s.id_student)).toEqual(['1001', '1005', '1003', '1002']);
    expect(students[2]).toEqual({
      id_student: '1003',
      fullName: `O'Brien & <Sons> "Q"`,
      id_device: 'dev-1003',
      ShowActive: '1',
    });
    expect(students[3].fullName).toBe('أحمد علي');
  });

  it('SendNotificationType and AuthCode: void answers, rows queued', async () => {
    const notes = await clientFor('NotificationNotes', soap12);
    await method(
      notes,
      'SendNotificationType',
    )({ id: '1001', baseUrlSchool: 'https://school-a.example', TypeNotfication: 'note' });
    const auth = await clientFor('AuthCodeSending', soap12);
    await method(auth, 'AuthCode')({ code: '1234', phone: '+963944123456' });
    expect(
      (await service.store.admin.listPushNotifications()).some((n) => n.studentId === '1001' && n.type === 'note'),
    ).toBe(true);
    expect((await service.store.admin.listAuthCodeMessages()).some((m) => m.phone === '+963944123456')).toBe(true);
  });

  it('GetStudentsAudtiNote, UpdateNoteState and GetStudentsAbcenceByID: void answers', async () => {
    const audit = await clientFor('GetStudentsAudit', soap12);
    const [a] = await method(audit, 'GetStudentsAudtiNote')({ SubjectID: 'MATH', Class_id: '7A' });
    const notes = await clientFor('ReadNoteFromApp', soap12);
    const [b] = await method(notes, 'UpdateNoteState')({ STDid: '1001', note_type: 'audit' });
    const absences = await clientFor('GetStudentsAbsence', soap12);
    const [c] = await method(absences, 'GetStudentsAbcenceByID')({ STDid: '1001' });
    expect([a, b, c]).toEqual([null, null, null]);
    // The parameters arrived: the student's audit note is now read, and the absences seen.
    expect((await service.store.records.listAuditNotes('MATH', '7A')).find((n) => n.id === 'n1')?.state).toBe('read');
    expect((await service.store.records.listAbsencesMarkSeen('1001')).every((absence) => absence.seen)).toBe(true);
  });

  it('a refused AuthCode surfaces as a fault with our message', async () => {
    const auth = await clientFor('AuthCodeSending', soap12);
    await expect(method(auth, 'AuthCode')({ code: '1234', phone: '12' })).rejects.toMatchObject({
      root: { Envelope: { Body: { Fault: expect.anything() } } },
    });
    await expect(method(auth, 'AuthCode')({ code: '1234', phone: '12' })).rejects.toThrow(
      /The phone number 12 is not a valid number/,
    );
  });
});
