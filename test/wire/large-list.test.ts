// A list large enough to be written in several chunks: the bytes are the
// same as one string would give, and Content-Length counts them all.
import { SaxesParser } from 'saxes';
import type { DataSet } from '../../src/store';
import { startTestService, type TestService } from '../support/service';
import { bodyText, httpGet, soap11 } from '../support/wire';

const SCHOOL = 'https://big.school.example';
const COUNT = 3000;
const names = Array.from({ length: COUNT }, (_, i) =>
  i % 2 === 0 ? `طالب ${String(i).padStart(4, '0')}` : `O'Neil & <${String(i).padStart(4, '0')}>`,
);
const DATA: DataSet = {
  schools: [{ baseUrl: SCHOOL, name: 'Big' }],
  students: names.map((fullName, i) => ({
    id: String(100000 + i),
    school: SCHOOL,
    fullName,
    deviceId: null,
    active: '1',
    classId: null,
  })),
};

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ data: DATA });
});
afterAll(async () => {
  await service.close();
});

function fullNamesIn(xml: string): string[] {
  const parser = new SaxesParser({ xmlns: true });
  const found: string[] = [];
  let inName = false;
  parser.on('opentag', (tag) => {
    inName = tag.local === 'fullName';
  });
  parser.on('text', (text) => {
    if (inName) found.push(text);
  });
  parser.on('closetag', () => {
    inName = false;
  });
  parser.write(xml).close();
  return found;
}

const expected = [...names].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));

it.each([
  [
    'SOAP 1.1',
    () => soap11(service.app, 'NotificationNotes', 'GetStudentSchool', { school_base_url: SCHOOL, show_active: '49' }),
  ],
  [
    'HTTP GET',
    () => httpGet(service.app, 'NotificationNotes', 'GetStudentSchool', { school_base_url: SCHOOL, show_active: '1' }),
  ],
])('answers %s with every student, whole and well-formed', async (_binding, call) => {
  const res = await call();
  expect(res.status).toBe(200);
  const text = bodyText(res);
  expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(text));
  expect(Buffer.byteLength(text)).toBeGreaterThan(100 * 1024);
  expect(fullNamesIn(text)).toEqual(expected);
});
