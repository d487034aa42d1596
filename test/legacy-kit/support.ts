// Servers for the comparison tests: instances of this service standing in for
// the legacy one (no ASMX server here), and a small proxy in front of one
// that records what it is sent and may rewrite what it answers, to make a
// wire difference appear.
import { mkdtempSync, writeFileSync } from 'node:fs';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { main, type CompareIo } from '../../src/cli/compare';
import { sendRequest, type Answer, type RecordedRequest } from '../../src/legacy-kit/compare';
import type { DataSet, OpenedStore } from '../../src/store';
import { FIXTURES } from '../support/fixtures';
import { listenOnLoopback, startTestService, type TestService } from '../support/service';

export interface Instance {
  readonly base: string;
  readonly service: TestService;
  close(): Promise<void>;
}

/** This service on a loopback port, with `data` (the fixtures by default). */
export async function startInstance(
  data: DataSet = FIXTURES,
  namespace?: string,
  store?: OpenedStore,
): Promise<Instance> {
  const service = await startTestService({ data, namespace, store });
  const listener = await listenOnLoopback(service.app);
  return {
    base: listener.base,
    service,
    async close() {
      await listener.close();
      await service.close();
    },
  };
}

export interface Proxy {
  readonly base: string;
  /** Every request it was sent. */
  readonly seen: RecordedRequest[];
  close(): Promise<void>;
}

/** A proxy to `target` that may rewrite each answer. */
export async function startProxy(
  target: string,
  rewrite: (request: RecordedRequest, answer: Answer) => Answer = (_request, answer) => answer,
): Promise<Proxy> {
  const seen: RecordedRequest[] = [];
  const server: Server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers))
        // Host kept, as a reverse proxy does: the documents name the address the client used.
        if (typeof value === 'string' && name !== 'content-length' && name !== 'connection') headers[name] = value;
      const request: RecordedRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(request);
      sendRequest(target, request, { timeoutMs: 5000, maxAnswerBytes: 1 << 24 }).then(
        (answer) => {
          const out = rewrite(request, answer);
          const outHeaders: Record<string, string | number> = {};
          for (const [name, value] of Object.entries(out.headers))
            if (!['content-length', 'connection', 'keep-alive', 'transfer-encoding', 'date'].includes(name))
              outHeaders[name] = value;
          outHeaders['content-length'] = out.body.length;
          res.writeHead(out.status, outHeaders);
          res.end(out.body);
        },
        () => {
          res.writeHead(502);
          res.end();
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A text answer with `from` replaced by `to`. */
export function replaceInBody(answer: Answer, from: string | RegExp, to: string): Answer {
  return { ...answer, body: Buffer.from(answer.body.toString('utf8').replace(from, to), 'utf8') };
}

export interface CompareRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `npm run compare -- ARGS` in this process, with no terminal to ask on unless `ask` is given. */
export async function runCompare(args: readonly string[], ask: CompareIo['ask'] = null): Promise<CompareRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    ask,
  });
  return { code, stdout, stderr };
}

/** A temporary folder. */
export function tempDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'sns-compare-'));
}

/** The data set as a data file of the import format (JSON). */
export function dataFile(dir: string, data: DataSet = FIXTURES): string {
  const file = path.join(dir, 'data.json');
  writeFileSync(file, JSON.stringify(data));
  return file;
}

/** The row of the terminal table for an operation and binding: the counts by column. */
export function tableRow(stdout: string, operation: string, binding: string): Record<string, number> {
  const prefix = `${operation} `;
  const line = stdout
    .split('\n')
    .find((l) => l.startsWith(prefix) && l.slice(prefix.length).trimStart().startsWith(`${binding} `));
  if (line === undefined) throw new Error(`no row ${operation} ${binding} in:\n${stdout}`);
  const counts = line.slice(prefix.length).trim().split(/\s+/).slice(1).map(Number);
  const [sameBytes, sameXml, explained, noise, differs, error] = counts;
  return { sameBytes, sameXml, explained, noise, differs, error };
}
