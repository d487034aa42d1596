// README's "A first call" runs as written (scripts/first-call.js): the same
// curl lines through the same shell, against the service as `npm start` makes
// it (its own embedded store, the demo data loaded on the first start), so
// that the page and the service cannot drift apart. .ci/run does the same
// against `npm start` itself on a fresh clone.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/log';
import { listen } from '../../src/server/http-server';
import { createService, type Service } from '../../src/service';
import { describeWithTools, findTool } from '../support/tools';

interface FirstCall {
  firstCallCommands(readme: string): Array<{ command: string; output: string }>;
  runFirstCall(readme: string, baseUrl: string): Promise<Array<{ command: string; expected: string; printed: string }>>;
}
const { firstCallCommands, runFirstCall } = jest.requireActual<FirstCall>('../../scripts/first-call.js');

const readme = readFileSync(path.join(__dirname, '../../README.md'), 'utf8');

describe('README first call, as read', () => {
  it('has the HTTP GET and SOAP 1.1 calls, each with the answer it shows', () => {
    const commands = firstCallCommands(readme);
    expect(commands.map((c) => c.command.split('\n')[0].slice(0, 40))).toEqual([
      "curl 'http://localhost:8080/PushNotifica",
      "curl -H 'Content-Type: text/xml; charset",
    ]);
    for (const { output } of commands) expect(output).toContain('demo-fcm-token-1001');
  });
});

describeWithTools(
  'README first call, run',
  { sh: findTool('sh'), curl: findTool('curl') },
  'apt-get install curl',
  () => {
    let service: Service;
    let dataDir: string;
    let baseUrl: string;
    let close: () => Promise<void>;

    beforeAll(async () => {
      dataDir = mkdtempSync(path.join(os.tmpdir(), 'sns-first-call-'));
      // What `npm start` reads on a fresh clone, but the folder and a free port.
      const config = loadConfig({ DATA_DIR: dataDir, PORT: '0' });
      service = await createService(config, createLogger('silent'));
      const server = await listen(service.app, 0, config.host, config.connections);
      baseUrl = `http://localhost:${(server.address() as AddressInfo).port}`;
      close = async () => {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await service.close();
      };
    });
    afterAll(async () => {
      await close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('answers every command as the README shows', async () => {
      expect(await runFirstCall(readme, baseUrl)).toEqual([]);
    });

    it('would notice a README that promised another answer', async () => {
      const changed = readme.replace(
        '<string xmlns="http://tempuri.org/">demo-fcm-token-1001',
        '<string xmlns="http://tempuri.org/">demo-fcm-token-1002',
      );
      expect(await runFirstCall(changed, baseUrl)).toHaveLength(1);
    });
  },
);
