// A TLS HTTP/2 server on loopback standing in for FCM: a self-signed
// certificate made for the test (the client trusts it explicitly, never by
// turning verification off), a stream limit it announces, answers a test
// scripts, and the session-level mishaps a real server has (GOAWAY, a
// dropped connection).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface H2Received {
  readonly path: string;
  readonly headers: http2.IncomingHttpHeaders;
  readonly body: string;
  readonly session: http2.ServerHttp2Session;
}

export interface H2Answer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
}

/** Decides each answer; may wait (a slow provider) or return 'hang'. */
export type H2Handler = (request: H2Received) => H2Answer | 'hang' | Promise<H2Answer | 'hang'>;

/** A self-signed certificate for 127.0.0.1 and localhost, made with openssl. */
export function selfSignedCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sns-h2-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return {
      key: readFileSync(path.join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(path.join(dir, 'cert.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export class FakeH2Server {
  readonly received: H2Received[] = [];
  /** Sessions ever opened by clients. */
  readonly sessions = new Set<http2.ServerHttp2Session>();
  /** The most streams one session had open at once. */
  maxConcurrentPerSession = 0;
  /**
   * Streams open over time, all sessions together, since the last
   * `resetOccupancy()`: the benchmark's mean streams in flight
   * (scripts/bench-delivery.ts, docs/delivery.md#cpu-per-push).
   */
  readonly #occupancy = { open: 0, streamMs: 0, changedAt: 0, firstOpenAt: NaN, lastCloseAt: NaN };
  /** Streams each session carried since the last `resetOccupancy()`. */
  readonly #streamsBySession = new Map<http2.ServerHttp2Session, number>();
  readonly cert: string;
  #handler: H2Handler = () => ({ status: 200, body: {} });
  readonly #server: http2.Http2SecureServer;
  readonly #open = new Map<http2.ServerHttp2Session, number>();

  private constructor(tls: { key: string; cert: string }, maxConcurrentStreams: number) {
    this.cert = tls.cert;
    this.#server = http2.createSecureServer({ ...tls, settings: { maxConcurrentStreams } });
    this.#server.on('session', (session) => {
      this.sessions.add(session);
      this.#open.set(session, 0);
      session.on('error', () => {});
    });
    this.#server.on('stream', (stream, headers) => {
      const session = stream.session as http2.ServerHttp2Session;
      const open = (this.#open.get(session) ?? 0) + 1;
      this.#open.set(session, open);
      this.maxConcurrentPerSession = Math.max(this.maxConcurrentPerSession, open);
      this.#countOpen(1);
      this.#streamsBySession.set(session, (this.#streamsBySession.get(session) ?? 0) + 1);
      stream.on('close', () => {
        this.#open.set(session, (this.#open.get(session) ?? 1) - 1);
        this.#countOpen(-1);
      });
      stream.on('error', () => {});
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        // A stream cut short by its session going away is no request.
        if (session.destroyed || stream.destroyed) return;
        const request: H2Received = {
          path: String(headers[':path']),
          headers,
          body: Buffer.concat(chunks).toString('utf8'),
          session,
        };
        this.received.push(request);
        void Promise.resolve(this.#handler(request)).then((answer) => {
          if (answer === 'hang' || stream.closed || stream.destroyed) return;
          stream.respond({ ':status': answer.status, 'content-type': 'application/json', ...answer.headers });
          stream.end(
            answer.body === undefined
              ? ''
              : typeof answer.body === 'string'
                ? answer.body
                : JSON.stringify(answer.body),
          );
        });
      });
    });
  }

  static async start(
    options: { maxConcurrentStreams?: number; tls?: { key: string; cert: string } } = {},
  ): Promise<FakeH2Server> {
    const fake = new FakeH2Server(options.tls ?? selfSignedCertificate(), options.maxConcurrentStreams ?? 100);
    await new Promise<void>((resolve) => fake.#server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get origin(): string {
    return `https://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  #countOpen(change: 1 | -1): void {
    const occupancy = this.#occupancy;
    const now = performance.now();
    occupancy.streamMs += occupancy.open * (now - occupancy.changedAt);
    occupancy.changedAt = now;
    occupancy.open += change;
    if (change === 1 && Number.isNaN(occupancy.firstOpenAt)) occupancy.firstOpenAt = now;
    if (change === -1) occupancy.lastCloseAt = now;
  }

  /** Starts counting streams in flight afresh (streams open now count from now). */
  resetOccupancy(): void {
    const occupancy = this.#occupancy;
    occupancy.streamMs = 0;
    occupancy.changedAt = performance.now();
    occupancy.firstOpenAt = NaN;
    occupancy.lastCloseAt = NaN;
    this.#streamsBySession.clear();
  }

  /** Streams each session carried since `resetOccupancy()`, the busiest first. */
  streamsBySession(): number[] {
    return [...this.#streamsBySession.values()].sort((a, b) => b - a);
  }

  /** Mean streams open, over the time from the first stream opened to the last closed since `resetOccupancy()`. */
  meanStreamsInFlight(): number {
    const { streamMs, firstOpenAt, lastCloseAt } = this.#occupancy;
    const span = lastCloseAt - firstOpenAt;
    return span > 0 ? streamMs / span : NaN;
  }

  handle(handler: H2Handler): void {
    this.#handler = handler;
  }

  async close(): Promise<void> {
    for (const session of this.sessions) session.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
