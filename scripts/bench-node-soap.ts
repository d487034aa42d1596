// The benchmark's framework yardstick: node-soap's own server on the same
// WSDL (wsdl/PushNotificationMobile.wsdl), answering GetTokenDevice with the
// token SOAP_TOKEN from memory. It parses the envelope and writes the answer
// in node-soap's code; the service does the same parse and write in its own
// code and also reads the store, logs and counts. SOAP 1.1 only: node-soap
// serves one SOAP version per server.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { listen } from 'soap';
import { root } from './bench-support';

const token = process.env.SOAP_TOKEN ?? '';
const wsdl = readFileSync(path.join(root, 'wsdl/PushNotificationMobile.wsdl'), 'utf8');
const service = {
  PushNotificationMobile: {
    PushNotificationMobileSoap: { GetTokenDevice: () => ({ GetTokenDeviceResult: token }) },
  },
};
const server = createServer((_req, res) => {
  res.statusCode = 404;
  res.end();
});
server.listen(0, '127.0.0.1', () => {
  listen(server, { path: '/PushNotificationMobile.asmx', services: service, xml: wsdl });
  console.log(`listening ${(server.address() as AddressInfo).port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
