// A push webhook (PUSH_PROVIDER=webhook, docs/delivery.md#push-providers) on
// the host's loopback, recording each notification a worker container sends.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Largest body the fake reads; a notification is a few hundred bytes. */
const MAX_BODY_BYTES = 64 * 1024;

export interface ReceivedPush {
  readonly authorization: string | undefined;
  readonly body: { token?: unknown; title?: unknown; data?: Record<string, unknown> };
}

export interface FakeWebhook {
  /** `http://127.0.0.1:PORT/push`, reachable from a container on the host's network. */
  readonly url: string;
  readonly received: ReceivedPush[];
  close(): Promise<void>;
}

export async function startFakeWebhook(): Promise<FakeWebhook> {
  const received: ReceivedPush[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/push' || size > MAX_BODY_BYTES) {
        res.writeHead(404).end();
        return;
      }
      try {
        received.push({
          authorization: req.headers.authorization,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as ReceivedPush['body'],
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/push`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
