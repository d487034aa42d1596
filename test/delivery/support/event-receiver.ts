// A school's system receiving delivery events: it verifies each delivery
// with its own reading of Standard Webhooks 1.0 (not the service's code),
// records it, and answers what the test says.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

interface Delivery {
  readonly id: string;
  readonly timestamp: number;
  readonly signature: string;
  readonly body: string;
  readonly verified: boolean;
  readonly answered: number;
}

/** A school's system: verifies each delivery and answers what the test says (200 unless told). */
export class Receiver {
  readonly deliveries: Delivery[] = [];
  /** The status to answer, or 'hang' to keep the request open until close(). */
  answer: () => number | 'hang' = () => 200;
  nowSeconds: () => number = () => Math.floor(Date.now() / 1000);
  #server: Server | null = null;
  url = '';

  constructor(private readonly secret: string) {}

  async start(): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const status = this.answer();
        this.deliveries.push({ ...this.#verify(req.headers, body), body, answered: status === 'hang' ? 0 : status });
        if (status === 'hang') return;
        res.writeHead(status, status === 503 ? { 'retry-after': '30' } : {});
        res.end();
      });
    });
    this.#server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  }

  // Standard Webhooks 1.0, written from the specification: the key is the
  // base64 after `whsec_`; the signed content is id.timestamp.body; the header
  // holds space-separated `v1,<base64>` signatures; older than 5 minutes is a replay.
  #verify(headers: IncomingHttpHeaders, body: string) {
    const id = String(headers['webhook-id'] ?? '');
    const timestamp = Number(headers['webhook-timestamp']);
    const signature = String(headers['webhook-signature'] ?? '');
    const key = Buffer.from(this.secret.split('_')[1], 'base64');
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
    const matches = signature.split(' ').some((part) => {
      const [version, value] = part.split(',');
      const given = Buffer.from(value ?? '', 'base64');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
    const fresh = Math.abs(this.nowSeconds() - timestamp) <= 300;
    return { id, timestamp, signature, verified: matches && fresh && headers['content-type'] === 'application/json' };
  }

  /** The events accepted, each once (the first 2xx of its webhook-id), in arrival order. */
  accepted(): Array<{ id: string; type: string; timestamp: string; data: Record<string, unknown> }> {
    const seen = new Set<string>();
    return this.deliveries.flatMap((d) => {
      if (d.answered !== 200 || seen.has(d.id)) return [];
      seen.add(d.id);
      return [
        { id: d.id, ...(JSON.parse(d.body) as { type: string; timestamp: string; data: Record<string, unknown> }) },
      ];
    });
  }

  close(): Promise<void> {
    const server = this.#server;
    if (server === null) return Promise.resolve();
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  }
}
