// The comparison's and the shadow's HTTP client (src/legacy-kit/compare/send-request.ts):
// the request goes out as recorded, under the server's path prefix, with the
// bounds of docs/migration.md (a timeout for the whole exchange, a cap on the
// answer); a sender reads the server's address once.
import http from 'node:http';
import type net from 'node:net';
import { createSender, SendError, sendRequest } from '../../src/legacy-kit/compare';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

async function withServer(
  answer: (req: http.IncomingMessage, res: http.ServerResponse) => void,
  run: (base: string, seen: Seen[]) => Promise<void>,
): Promise<void> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      answer(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await run(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, seen);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

const ok = (_req: http.IncomingMessage, res: http.ServerResponse) => {
  res.setHeader('content-type', 'text/xml; charset=utf-8');
  res.end('<a>1</a>');
};

describe('sending a recorded request', () => {
  it('sends the path under the prefix, the headers and the body byte for byte, and reads the answer', async () => {
    await withServer(ok, async (base, seen) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
      const send = createSender(`${base}/legacy/`, { timeoutMs: 5000, maxAnswerBytes: 1 << 20, agent });
      // Not UTF-8: sent as the bytes they are.
      const body = Buffer.from([0x3c, 0x61, 0xff, 0xfe, 0x3e]);
      const answer = await send({
        method: 'POST',
        path: '/X.asmx?op=1',
        headers: { 'content-type': 'text/xml', soapaction: '""' },
        body,
      });
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('text/xml; charset=utf-8');
      expect(answer.body.toString()).toBe('<a>1</a>');
      expect(seen).toHaveLength(1);
      expect(seen[0].method).toBe('POST');
      expect(seen[0].url).toBe('/legacy/X.asmx?op=1');
      expect(seen[0].headers.soapaction).toBe('""');
      expect(seen[0].headers['content-length']).toBe('5');
      expect(seen[0].body.equals(body)).toBe(true);
      // A GET without a body carries no length.
      await send({ method: 'GET', path: '/X.asmx/Op?id=1', headers: {}, body: Buffer.alloc(0) });
      expect(seen[1].url).toBe('/legacy/X.asmx/Op?id=1');
      expect(seen[1].headers['content-length']).toBeUndefined();
      agent.destroy();
    });
  });

  it('encodes a path as a URL does, and resolves its dot segments, as before the sender read the address once', async () => {
    await withServer(ok, async (base, seen) => {
      const options = { timeoutMs: 5000, maxAnswerBytes: 1 << 20 };
      await sendRequest(base, { method: 'GET', path: '/a b/X.asmx/Op?q=x y', headers: {}, body: '' }, options);
      await sendRequest(base, { method: 'GET', path: '/a/../X.asmx/Op?id=1', headers: {}, body: '' }, options);
      await sendRequest(base, { method: 'GET', path: '/X.asmx/Op?name=O%27Brien', headers: {}, body: '' }, options);
      expect(seen.map((s) => s.url)).toEqual([
        '/a%20b/X.asmx/Op?q=x%20y',
        '/X.asmx/Op?id=1',
        '/X.asmx/Op?name=O%27Brien',
      ]);
    });
  });

  it('fails with SendError past the timeout and past the answer cap', async () => {
    // The server sends nothing after its headers: only the whole exchange's timer ends it.
    await withServer(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial');
      },
      async (base) => {
        const send = createSender(base, { timeoutMs: 200, maxAnswerBytes: 1 << 20 });
        const failure = send({ method: 'GET', path: '/X.asmx', headers: {}, body: Buffer.alloc(0) });
        await expect(failure).rejects.toThrow(SendError);
        await expect(failure).rejects.toThrow('no answer within 200 ms');
      },
    );
    await withServer(
      (_req, res) => res.end('x'.repeat(2048)),
      async (base) => {
        const send = createSender(base, { timeoutMs: 5000, maxAnswerBytes: 1024 });
        await expect(send({ method: 'GET', path: '/X.asmx', headers: {}, body: Buffer.alloc(0) })).rejects.toThrow(
          'answer longer than 1024 bytes',
        );
      },
    );
  });
});
