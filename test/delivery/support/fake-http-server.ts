// A real HTTP server on loopback whose answers a test scripts: one answer per
// request in order, then a default. `hang` never answers (a timeout, or a
// send cut short by a crash).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  readonly receivedAt: number;
}

export type Answer =
  { readonly status: number; readonly headers?: Record<string, string>; readonly body?: unknown } | 'hang';
/** An answer the test gives later (a slow provider). */
export type LaterAnswer = Promise<Answer>;
export type Route = (request: RecordedRequest) => Answer | undefined;

export class FakeHttpServer {
  readonly requests: RecordedRequest[] = [];
  readonly #server: http.Server;
  readonly #scripted: Array<Answer | LaterAnswer> = [];
  readonly #routes: Route[] = [];
  #default: Answer = { status: 200, body: {} };
  #listeners: Array<(request: RecordedRequest) => void> = [];

  private constructor() {
    this.#server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const request: RecordedRequest = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          receivedAt: Date.now(),
        };
        let answer: Answer | LaterAnswer | undefined;
        for (const route of this.#routes) {
          answer = route(request);
          if (answer !== undefined) break;
        }
        if (answer === undefined) {
          this.requests.push(request);
          answer = this.#scripted.shift() ?? this.#default;
          for (const listener of this.#listeners) listener(request);
        }
        void Promise.resolve(answer).then((settled) => {
          if (settled === 'hang') return;
          const body =
            settled.body === undefined
              ? ''
              : typeof settled.body === 'string'
                ? settled.body
                : JSON.stringify(settled.body);
          res.writeHead(settled.status, { 'content-type': 'application/json', ...settled.headers });
          res.end(body);
        });
      });
    });
  }

  static async start(): Promise<FakeHttpServer> {
    const fake = new FakeHttpServer();
    await new Promise<void>((resolve) => fake.#server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Answers for the next requests, in order. */
  script(...answers: Array<Answer | LaterAnswer>): void {
    this.#scripted.push(...answers);
  }

  /** The answer once the script is used up. */
  answerByDefault(answer: Answer): void {
    this.#default = answer;
  }

  /** A route answers (and is not recorded) when it returns an answer; FCM's token endpoint is one. */
  route(route: Route): void {
    this.#routes.push(route);
  }

  onRequest(listener: (request: RecordedRequest) => void): void {
    this.#listeners.push(listener);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
