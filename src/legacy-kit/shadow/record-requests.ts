// RECORD_REQUESTS (docs/migration.md#recording-requests): the read calls the
// service receives, written as JSON Lines of {method, path, headers, body}
// for `npm run compare -- --requests` to replay. Credentials (Authorization,
// Proxy-Authorization, Cookie) and the caller's X-Forwarded-* are removed; writes, AuthCode among them (codes and phone
// numbers), are never written. The file is created with mode 0600. The
// request path only queues a line: a bounded buffer is written out behind
// it, and a line that does not fit is dropped and counted.
import { closeSync, fchmodSync, fstatSync, openSync, write } from 'node:fs';
import type { Logger } from '../../log';
import type { RecordingMetrics } from '../../metrics';
import { bodyFields, operationKind, requestLine } from '../compare';
import type { RequestObserver } from '../../observe/request-observer';
import { replayHeaders, sampledCall } from './sampled-call';

export interface RecordRequestsOptions {
  /** RECORD_REQUESTS: the file, appended to. */
  readonly file: string;
  /** RECORD_REQUESTS_SAMPLE: the fraction of read calls written. */
  readonly sample: number;
  /** RECORD_REQUESTS_MAX_BYTES: the file is not written past this size. */
  readonly maxBytes: number;
  readonly logger: Logger;
  readonly metrics: RecordingMetrics;
  /** For tests; Math.random otherwise. */
  readonly random?: () => number;
}

export interface RequestRecorder {
  readonly observe: RequestObserver;
  /** Writes what is queued and closes the file. */
  close(): Promise<void>;
}

/** Most bytes queued for the writer; beyond, lines are dropped. */
const QUEUE_BYTES = 4 * 1024 * 1024;

export function recordRequests(options: RecordRequestsOptions): RequestRecorder {
  const random = options.random ?? Math.random;
  const fd = openSync(options.file, 'a', 0o600);
  // An existing file keeps its mode on open: made private here too.
  fchmodSync(fd, 0o600);
  let size = fstatSync(fd).size;
  let queue: string[] = [];
  let queuedBytes = 0;
  let writing: Promise<void> | null = null;
  let closed = false;

  const drain = () => {
    if (writing !== null || queue.length === 0 || closed) return;
    const data = Buffer.from(queue.join(''), 'utf8');
    queue = [];
    queuedBytes = 0;
    writing = new Promise<void>((resolve) => {
      const writeFrom = (offset: number) =>
        write(fd, data, offset, data.length - offset, null, (err, written) => {
          if (err !== null) {
            options.logger.error({ err, file: options.file }, 'RECORD_REQUESTS: the file could not be written');
            resolve();
          } else if (offset + written < data.length) writeFrom(offset + written);
          else resolve();
        });
      writeFrom(0);
    }).then(() => {
      writing = null;
      drain();
    });
  };

  const observe: RequestObserver = (req, res, record, next) => {
    const sampled = sampledCall(req, options.sample, random);
    if (sampled === null) return next();
    const { method, url } = sampled;
    const headers = replayHeaders(req, { keepAuthorization: false });
    // A caller's request id names this service's log lines for that one call: not part of what is replayed.
    delete headers['x-request-id'];
    res.once('finish', () => {
      const operation = record.operation;
      if (operation === null || operationKind(operation) === 'write' || closed) return;
      const line = requestLine({ method, path: url, headers, ...bodyFields(record.body ?? Buffer.alloc(0)) });
      const bytes = Buffer.byteLength(line);
      if (size + bytes > options.maxBytes) {
        options.metrics.recorded('full');
        return;
      }
      if (queuedBytes + bytes > QUEUE_BYTES) {
        options.metrics.recorded('dropped');
        return;
      }
      queue.push(line);
      queuedBytes += bytes;
      size += bytes;
      options.metrics.recorded('written');
      setImmediate(drain);
    });
    next();
  };

  let closing: Promise<void> | null = null;
  return {
    observe,
    close() {
      closing ??= (async () => {
        drain();
        while (writing !== null) await writing;
        closed = true;
        closeSync(fd);
      })();
      return closing;
    },
  };
}
