// The benchmark's framework yardstick: node-soap's own server on the same
// WSDLs (wsdl/PushNotificationMobile.wsdl, wsdl/NotificationNotes.wsdl,
// wsdl/GetStudentsAudit.wsdl), answering from memory: GetTokenDevice with the
// token SOAP_TOKEN, GetStudentSchool with the students in the file
// SOAP_STUDENTS (those of the 500-student school scripts/bench.ts seeds),
// SendNotificationType and GetStudentsAudtiNote with their empty answers. It
// parses the envelope and writes the answer in node-soap's code; the service
// does the same parse and write in its own code and also reads and writes the
// store, logs and counts. SOAP 1.1 only: node-soap serves one SOAP version per
// server.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { listen } from 'soap';
import { root } from './bench-support';

/** A GetStudentSchool item as the WSDL names its fields. */
export interface StudentInfo {
  readonly id_student: string;
  readonly fullName: string;
  readonly id_device: string;
  readonly ShowActive: string;
}

const token = process.env.SOAP_TOKEN ?? '';
const students = JSON.parse(readFileSync(process.env.SOAP_STUDENTS ?? '', 'utf8')) as StudentInfo[];

/** Each endpoint's operations on its SOAP 1.1 port, as node-soap takes them. */
const ENDPOINTS = {
  PushNotificationMobile: { GetTokenDevice: () => ({ GetTokenDeviceResult: token }) },
  NotificationNotes: {
    GetStudentSchool: () => ({ GetStudentSchoolResult: { StudentInfo: students } }),
    SendNotificationType: () => ({}),
  },
  GetStudentsAudit: { GetStudentsAudtiNote: () => ({}) },
};

const server = createServer((_req, res) => {
  res.statusCode = 404;
  res.end();
});
server.listen(0, '127.0.0.1', () => {
  for (const [endpoint, operations] of Object.entries(ENDPOINTS))
    listen(server, {
      path: `/${endpoint}.asmx`,
      services: { [endpoint]: { [`${endpoint}Soap`]: operations } },
      xml: readFileSync(path.join(root, `wsdl/${endpoint}.wsdl`), 'utf8'),
    });
  console.log(`listening ${(server.address() as AddressInfo).port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
