// A NUL in a parameter of the legacy contract (docs/security.md#review-2026-11-28,
// docs/design.md#a-nul-in-a-parameter): PostgreSQL takes no NUL in a text,
// so such a value used to reach it as a store failure (500, logged at error
// level, counted as server_fault) where SQLite answered the empty result.
// Every operation, over HTTP GET and POST, on both stores, now answers it as
// it answers a value that matches nothing, counted as the caller's; the SOAP
// bindings refuse it as XML that is not well-formed, before any operation.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { parseMetrics } from '../support/prometheus';
import { ADMIN_TOKEN, startOperatedService, type OperatedService } from '../support/operated-service';
import { FIXTURES } from '../support/fixtures';
import { storeVariants } from '../support/stores';
import { bodyText, envelope, httpGet, httpPost, type Params } from '../support/wire';

interface Case {
  readonly endpoint: string;
  readonly op: string;
  /** Values that match something (or are accepted); each one in turn is given a NUL. */
  readonly params: Params;
}

const CASES: readonly Case[] = [
  {
    endpoint: 'PushNotificationMobile',
    op: 'GetTokenDevice',
    params: { id: 'dev-1001' },
  },
  {
    endpoint: 'NotificationNotes',
    op: 'GetStudentSchool',
    params: { school_base_url: 'https://school-a.example', show_active: '1' },
  },
  {
    endpoint: 'GetStudentsAudit',
    op: 'GetStudentsAudtiNote',
    params: { SubjectID: 'MATH', Class_id: '7A' },
  },
  {
    endpoint: 'ReadNoteFromApp',
    op: 'UpdateNoteState',
    params: { STDid: '1001', note_type: 'behaviour' },
  },
  {
    endpoint: 'GetStudentsAbsence',
    op: 'GetStudentsAbcenceByID',
    params: { STDid: '1001' },
  },
  {
    endpoint: 'NotificationNotes',
    op: 'SendNotificationType',
    params: {
      id: '1001',
      baseUrlSchool: 'https://school-a.example',
      TypeNotfication: 'absence',
    },
  },
  {
    endpoint: 'AuthCodeSending',
    op: 'AuthCode',
    params: { code: '1234', phone: '+966501234567' },
  },
];

/** Each parameter of each case with a NUL in it: alone, and inside the value. */
const PROBES = CASES.flatMap((c) =>
  Object.keys(c.params).flatMap((name) =>
    ['\0', `${c.params[name]}\0x`].map((value) => ({
      ...c,
      name,
      value,
      label: `${c.op} ${name}=${JSON.stringify(value)}`,
    })),
  ),
);

/**
 * The call that matches nothing which the NUL's call must answer as: the NUL
 * written `~` (no stored key holds one either), or for SendNotificationType's
 * type, which matches nothing stored but could not be queued on PostgreSQL,
 * an unknown student. An answer that echoes the value (a fault's message)
 * names the probe's value with U+FFFD for its NUL, as no error text repeats
 * a control character (test/security/echoed-controls.test.ts).
 */
function counterpart(probe: (typeof PROBES)[number]): {
  params: Params;
  asProbe: (text: string) => string;
} {
  if (probe.name === 'TypeNotfication') {
    return {
      params: { ...probe.params, id: 'nobody' },
      asProbe: (text) => text.replace('nobody', probe.params.id),
    };
  }
  const other = probe.value.replace('\0', '~');
  return {
    params: { ...probe.params, [probe.name]: other },
    asProbe: (text) => text.replace(other, probe.value.replace('\0', '\uFFFD')),
  };
}

/** A body each writing route takes (the fixtures' records), whose strings the probes below give a NUL in turn. */
const BODIES: Readonly<Record<string, Record<string, unknown>>> = {
  '/schools': {
    baseUrl: 'https://school-c.example',
    name: 'School C',
    timeZone: 'Asia/Riyadh',
    quietHours: '21:00-06:00',
  },
  '/schools/{baseUrl}': {
    baseUrl: 'https://school-a.example',
    name: 'School A',
    timeZone: 'UTC',
  },
  '/devices': { id: 'dev-9', token: 'fcm:9', platform: 'android' },
  '/devices/{id}': { id: 'dev-1001', token: 'fcm:9', platform: 'android' },
  '/students': {
    id: '9001',
    school: 'https://school-a.example',
    fullName: 'Nine',
    deviceId: 'dev-1001',
    classId: '7A',
  },
  '/students/{id}': {
    id: '1001',
    school: 'https://school-a.example',
    fullName: 'Ahmad Ali',
    deviceId: 'dev-1001',
  },
  '/notes': {
    id: 'n9',
    studentId: '1001',
    type: 'audit',
    subjectId: 'MATH',
    classId: '7A',
    text: 'x',
    date: '2026-10-01',
  },
  '/notes/{id}': {
    id: 'n3',
    studentId: '1001',
    type: 'audit',
    text: 'x',
    date: '2026-10-01',
  },
  '/absences': {
    id: 'a9',
    studentId: '1001',
    date: '2026-10-01',
    type: 'late',
    reason: 'x',
  },
  '/absences/{id}': {
    id: 'a1',
    studentId: '1001',
    date: '2026-10-01',
    type: 'late',
    reason: 'x',
  },
  '/schools/{baseUrl}/events': { url: 'https://receiver.example/hook' },
  '/notifications': { studentId: '1001', type: 'absence' },
};

/** A path parameter's value that reaches the store (a channel is one of two words, checked first). */
const PATH_VALUES: Readonly<Record<string, string>> = {
  baseUrl: 'https%3A%2F%2Fschool-a.example',
  channel: 'push',
};

interface ApiOperation {
  readonly parameters?: readonly {
    readonly name: string;
    readonly in: string;
  }[];
  readonly requestBody?: unknown;
}

async function serverFaults(service: OperatedService): Promise<number> {
  const res = await request(service.app).get('/metrics');
  return parseMetrics(res.text)
    .filter((s) => s.name === 'notify_requests_total' && s.labels.outcome === 'server_fault')
    .reduce((sum, s) => sum + s.value, 0);
}

describe.each(storeVariants())('a NUL in a caller’s value on $name', (variant) => {
  let service: OperatedService;
  beforeAll(async () => {
    service = await startOperatedService(variant);
  });
  afterAll(() => service.stop());

  // Each test looks at the lines it caused: one failure does not fail the rest.
  let seen = 0;
  beforeEach(() => {
    seen = service.logs.length;
  });
  const errorsLogged = () => service.logs.slice(seen).filter((line) => (line.level as number) >= 50);
  const refusalsNotRecorded = () =>
    service.logs.slice(seen).filter((line) => String(line.msg).startsWith('a refused call could not be recorded'));

  describe.each([
    ['HTTP GET', httpGet],
    ['HTTP POST', httpPost],
  ])('over %s', (_binding, call) => {
    it.each(PROBES.map((p) => [p.label, p] as const))(
      '%s answers as a value that matches nothing',
      async (_l, probe) => {
        const faultsBefore = await serverFaults(service);
        const other = counterpart(probe);
        const expected = await call(service.app, probe.endpoint, probe.op, other.params);
        const res = await call(service.app, probe.endpoint, probe.op, {
          ...probe.params,
          [probe.name]: probe.value,
        });
        expect([res.status, res.headers['content-type'], bodyText(res)]).toEqual([
          expected.status,
          expected.headers['content-type'],
          other.asProbe(bodyText(expected)),
        ]);
        expect(await serverFaults(service)).toBe(faultsBefore);
        expect(errorsLogged()).toEqual([]);
        // A refused call's record is written in the background: let it land before looking.
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(refusalsNotRecorded()).toEqual([]);
        // No parameter value reaches a log line (docs/security.md), a NUL's no more than another's.
        expect(service.logs.slice(seen).filter((line) => JSON.stringify(line).includes('\\u0000'))).toEqual([]);
      },
    );
  });

  it('writes nothing for a NUL: no note marked read, no absence marked seen, nothing queued', async () => {
    const state = async () => ({
      queued: await service.testStore.query('select id from push_notifications'),
      notes: await service.testStore.query('select id, read_at from notes order by id'),
      absences: await service.testStore.query('select id, seen from absences order by id'),
    });
    const before = await state();
    for (const call of [httpGet, httpPost]) {
      for (const type of ['absence\0', '\0absence']) {
        await call(service.app, 'NotificationNotes', 'SendNotificationType', {
          id: '1001',
          baseUrlSchool: 'https://school-a.example',
          TypeNotfication: type,
        });
      }
      await call(service.app, 'ReadNoteFromApp', 'UpdateNoteState', {
        STDid: '1001',
        note_type: 'behaviour\0',
      });
      await call(service.app, 'GetStudentsAbsence', 'GetStudentsAbcenceByID', { STDid: '1001\0' });
    }
    expect(await state()).toEqual(before);
  });

  it('keeps a refused call with a NUL for the console, the NUL shown as U+FFFD', async () => {
    await httpGet(service.app, 'NotificationNotes', 'SendNotificationType', {
      id: 'x\0y',
      baseUrlSchool: 'https://school-a.example',
      TypeNotfication: 'absence',
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const kept = await service.testStore.query<{
      student_id: string;
      reason: string;
    }>("select student_id, reason from refused_calls where student_id like 'x%'");
    expect(kept).toEqual([{ student_id: 'x\uFFFDy', reason: 'student_unknown' }]);
  });

  it.each([
    ['SOAP 1.1', 'text/xml; charset=utf-8', '1.1'],
    ['SOAP 1.2', 'application/soap+xml; charset=utf-8', '1.2'],
  ] as const)(
    '%s refuses &#0; and a raw NUL as XML that is not well-formed, as the caller’s',
    async (_b, type, version) => {
      const faultsBefore = await serverFaults(service);
      for (const value of ['&#0;', 'dev&#0;1001', '\0']) {
        const body = envelope(version, 'GetTokenDevice', {
          id: 'PLACEHOLDER',
        }).replace('PLACEHOLDER', value);
        const res = await request(service.app)
          .post('/PushNotificationMobile.asmx')
          .set('Content-Type', version === '1.1' ? type : `${type}; action="http://tempuri.org/GetTokenDevice"`)
          .set('SOAPAction', '"http://tempuri.org/GetTokenDevice"')
          .send(body);
        // As any envelope that is not well-formed XML (test/wire): the caller's 400, before any operation.
        expect([value, res.status]).toEqual([value, 400]);
      }
      expect(await serverFaults(service)).toBe(faultsBefore);
      expect(errorsLogged()).toEqual([]);
    },
  );

  describe('the admin API', () => {
    const BASE = '/admin/api/v1';
    const auth = (test: request.Test) => test.set('Authorization', `Bearer ${ADMIN_TOKEN}`);

    /** Every route of the API's own description, each path parameter, query parameter and body string given a NUL in turn. */
    async function probes(): Promise<{ label: string; method: string; path: string; body?: unknown }[]> {
      const doc = (await auth(request(service.app).get(`${BASE}/openapi.json`))).body as {
        paths: Record<string, Record<string, ApiOperation>>;
      };
      const found: {
        label: string;
        method: string;
        path: string;
        body?: unknown;
      }[] = [];
      for (const [template, methods] of Object.entries(doc.paths)) {
        for (const [method, operation] of Object.entries(methods)) {
          const params = operation.parameters ?? [];
          const fill = (nulIn: string | null) =>
            template.replace(/\{(\w+)\}/g, (_m, name: string) =>
              name === nulIn ? 'x%00y' : (PATH_VALUES[name] ?? (name === 'id' ? '1001' : name)),
            );
          const body = operation.requestBody === undefined ? undefined : BODIES[template];
          if (operation.requestBody !== undefined && body === undefined) throw new Error(`no body for ${template}`);
          for (const p of params.filter((p) => p.in === 'path' && p.name !== 'channel'))
            found.push({
              label: `${method} ${template} path ${p.name}`,
              method,
              path: fill(p.name),
              body,
            });
          for (const p of params.filter((p) => p.in === 'query'))
            found.push({
              label: `${method} ${template} query ${p.name}`,
              method,
              path: `${fill(null)}?${p.name}=a%00b`,
              body,
            });
          for (const [key, value] of Object.entries(body ?? {})) {
            if (typeof value === 'string')
              found.push({
                label: `${method} ${template} body ${key}`,
                method,
                path: fill(null),
                body: { ...body, [key]: `${value}\0` },
              });
          }
        }
      }
      return found;
    }

    it('answers every NUL 400 with the API’s error shape, logs no error and stores nothing', async () => {
      const all = await probes();
      expect(all.length).toBeGreaterThan(60);
      const seen = service.logs.length;
      const answers: string[] = [];
      for (const probe of all) {
        const method = probe.method as 'get' | 'post' | 'put' | 'patch' | 'delete';
        let test = auth(request(service.app)[method](`${BASE}${probe.path}`));
        if (probe.body !== undefined) test = test.send(probe.body as object);
        const res = await test;
        const body = res.body as { error?: { code?: string } };
        answers.push(`${probe.label}: ${res.status} ${body.error?.code ?? ''}`);
      }
      expect(answers).toEqual(all.map((probe) => `${probe.label}: 400 invalid_request`));
      expect(service.logs.slice(seen).filter((line) => (line.level as number) >= 50)).toEqual([]);
      const stored = await service.testStore.query<{ id: string }>("select id from students where id like '9001%'");
      expect(stored).toEqual([]);
    });
  });
});

describe.each(storeVariants())('a NUL in a record written on $name', (variant) => {
  it('is refused with the field’s path, as the importer and the admin API report it, and nothing is written', async () => {
    const testStore = await variant.create();
    try {
      const student = {
        ...FIXTURES.students?.[0],
        id: '9',
        school: 'https://school-a.example',
        fullName: 'Nine',
        deviceId: null,
      };
      for (const [field, value] of [
        ['id', '9\0'],
        ['fullName', 'a\0b'],
        ['classId', '7\0'],
      ] as const) {
        await expect(
          testStore.store.dataSet.writeDataSet({
            schools: FIXTURES.schools,
            students: [{ ...student, [field]: value }],
          }),
        ).rejects.toThrow(`students[0].${field} must not hold a NUL character.`);
      }
      expect(await testStore.query('select id from students')).toEqual([]);
    } finally {
      await testStore.cleanup();
    }
  });
});

describe.each(storeVariants())('a NUL in a legacy parameter under an access policy on $name', (variant) => {
  let service: OperatedService;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sns-nul-policy-'));
    // Every operation open, with a budget: the audit trail and the enumeration guard both see the subject.
    writeFileSync(path.join(dir, 'policy.yaml'), 'default:\n  limit: 1000/1h\n');
    service = await startOperatedService(variant, {
      ACCESS_POLICY: path.join(dir, 'policy.yaml'),
    });
  });
  afterAll(async () => {
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('audits the read, the NUL kept as U+FFFD, and the entries after it still reach the store', async () => {
    const seen = service.logs.length;
    for (const call of [httpGet, httpPost]) {
      expect((await call(service.app, 'PushNotificationMobile', 'GetTokenDevice', { id: 'x\0y' })).status).toBe(200);
      expect((await call(service.app, 'GetStudentsAbsence', 'GetStudentsAbcenceByID', { STDid: '1\0' })).status).toBe(
        200,
      );
    }
    expect((await httpGet(service.app, 'PushNotificationMobile', 'GetTokenDevice', { id: 'dev-1001' })).status).toBe(
      200,
    );
    // The trail is written in batches, every second (src/access/audit-trail.ts).
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const rows = await service.testStore.query<{ subject: string }>(
      "select subject from access_audit where operation in ('GetTokenDevice', 'GetStudentsAbcenceByID') order by subject",
    );
    expect(rows.map((r) => r.subject).sort()).toEqual(
      ['1\uFFFD', '1\uFFFD', 'dev-1001', 'x\uFFFDy', 'x\uFFFDy'].sort(),
    );
    expect(service.logs.slice(seen).filter((line) => (line.level as number) >= 40)).toEqual([]);
  });
});
