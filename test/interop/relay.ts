// A logging TCP relay between one client and the service: it forwards bytes
// untouched both ways and records every request with the answer it got, so
// the suite can keep exactly what each real client put on the wire.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { HttpMessageSplitter, type HttpMessage } from '../support/http-messages';

export interface Exchange {
  readonly request: HttpMessage;
  readonly response: HttpMessage | null;
}

export interface Relay {
  /** `http://127.0.0.1:PORT`: give this to the client instead of the service's address. */
  readonly baseUrl: string;
  /** Every request seen so far, in the order each was completed, with its answer. */
  exchanges(): readonly Exchange[];
  close(): Promise<void>;
}

export async function startRelay(upstreamPort: number): Promise<Relay> {
  const exchanges: { request: HttpMessage; response: HttpMessage | null }[] = [];
  const sockets = new Set<net.Socket>();

  const server = net.createServer((client) => {
    const upstream = net.connect(upstreamPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    // HTTP/1.1 answers come in request order, so each answer belongs to the oldest unanswered request.
    const waiting: { request: HttpMessage; response: HttpMessage | null }[] = [];
    const requests = new HttpMessageSplitter('request', (request) => {
      const exchange = { request, response: null };
      waiting.push(exchange);
      exchanges.push(exchange);
    });
    const responses = new HttpMessageSplitter('response', (response) => {
      const exchange = waiting.shift();
      if (exchange) exchange.response = response;
    });

    client.on('data', (chunk: Buffer) => {
      requests.push(chunk);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      responses.push(chunk);
      client.write(chunk);
    });
    client.on('end', () => upstream.end());
    upstream.on('end', () => {
      responses.end();
      client.end();
    });
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    exchanges: () => exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
