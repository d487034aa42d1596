import {
  ENDPOINTS,
  loadEndpointModel,
  loadServiceModel,
  readAuthoredWsdl,
  ContractMismatchError,
} from '../../src/contract';

describe('the WSDL files against the contract module', () => {
  it('every endpoint WSDL loads in node-soap and matches the contract', async () => {
    const models = await loadServiceModel('http://tempuri.org/');
    expect(models.map((m) => m.name)).toEqual(ENDPOINTS.map((e) => e.name));
    const table = models.flatMap((m) =>
      m.operations.map((op) => [
        m.name,
        op.wireName,
        op.soapAction,
        op.parameters.map((p) => `${p.wireName}:${p.type}`).join(','),
        op.result,
      ]),
    );
    expect(table).toEqual([
      ['AuthCodeSending', 'AuthCode', 'http://tempuri.org/AuthCode', 'code:string,phone:string', 'void'],
      [
        'GetStudentsAudit',
        'GetStudentsAudtiNote',
        'http://tempuri.org/GetStudentsAudtiNote',
        'SubjectID:string,Class_id:string',
        'void',
      ],
      [
        'ReadNoteFromApp',
        'UpdateNoteState',
        'http://tempuri.org/UpdateNoteState',
        'STDid:string,note_type:string',
        'void',
      ],
      [
        'GetStudentsAbsence',
        'GetStudentsAbcenceByID',
        'http://tempuri.org/GetStudentsAbcenceByID',
        'STDid:string',
        'void',
      ],
      [
        'NotificationNotes',
        'GetStudentSchool',
        'http://tempuri.org/GetStudentSchool',
        'school_base_url:string,show_active:char',
        'ArrayOfStudentInfo',
      ],
      [
        'NotificationNotes',
        'SendNotificationType',
        'http://tempuri.org/SendNotificationType',
        'id:string,baseUrlSchool:string,TypeNotfication:string',
        'void',
      ],
      ['PushNotificationMobile', 'GetTokenDevice', 'http://tempuri.org/GetTokenDevice', 'id:string', 'string'],
    ]);
  });

  it('applies another namespace to the target namespace and the actions', async () => {
    const [model] = await Promise.all([loadEndpointModel(ENDPOINTS[5], 'urn:school:notify')]);
    expect(model.operations[0].soapAction).toBe('urn:school:notify/GetTokenDevice');
    expect(model.wsdl).toContain('targetNamespace="urn:school:notify"');
    expect(model.wsdl).not.toContain('tempuri');
  });

  it('refuses a WSDL whose parameters differ from the contract', async () => {
    const spec = ENDPOINTS.find((e) => e.name === 'PushNotificationMobile')!;
    const drifted = readAuthoredWsdl(spec.name).replace(
      'name="id" type="s:string" />',
      'name="deviceId" type="s:string" />',
    );
    await expect(loadEndpointModel(spec, 'http://tempuri.org/', drifted)).rejects.toThrow(ContractMismatchError);
    await expect(loadEndpointModel(spec, 'http://tempuri.org/', drifted)).rejects.toThrow(
      /parameters are \(deviceId:string\)/,
    );
  });

  it('refuses a WSDL whose char parameter became a string', async () => {
    const spec = ENDPOINTS.find((e) => e.name === 'NotificationNotes')!;
    const drifted = readAuthoredWsdl(spec.name).replace('type="s1:char"', 'type="s:string"');
    await expect(loadEndpointModel(spec, 'http://tempuri.org/', drifted)).rejects.toThrow(/show_active:string/);
  });
});
