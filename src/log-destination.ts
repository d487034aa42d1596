// Where the JSON log lines go when stdout is a pipe or a socket (a log
// shipper, `| head`, a container runtime): written without ever blocking the
// process, whatever the reader does (docs/operating.md#logs).
//
// pino's own destination writes with fs.write and, at exit, flushes with a
// synchronous loop that retries until the write succeeds: with a reader that
// closed its end or stopped reading, that loop never ends, and the process
// hangs in it at shutdown, deaf to further signals. Here the descriptor is
// written through a non-blocking stream instead: lines gather into batches,
// at most MAX_BUFFERED_BYTES wait for the reader, and past that (or once the
// pipe is broken) lines are dropped and counted. Nothing is ever flushed
// synchronously except one try, which cannot block, as the process exits.
import { fstatSync, writeSync } from 'node:fs';
import net from 'node:net';
import type { DestinationStream } from 'pino';

export interface LogDestination extends DestinationStream {
  /** Writes what is gathered; `done` once the reader has taken everything, or the destination is broken. No deadline: the caller sets one. */
  flush(done?: () => void): void;
  /** Lines dropped because the destination could not take them. */
  readonly dropped: number;
}

export interface PipeDestinationOptions {
  /** Most bytes that wait for a slow reader; a line beyond is dropped. */
  readonly maxBufferedBytes?: number;
  /** A batch is written once it holds this many bytes. */
  readonly batchBytes?: number;
  /** ...or after this long, so that a quiet server's lines still show promptly. */
  readonly flushEveryMs?: number;
}

export const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
const BATCH_BYTES = 16 * 1024;
const FLUSH_EVERY_MS = 1000;

/** Whether `fd` is a pipe or a socket, the destinations a reader can stop taking from. */
export function isPipe(fd: number): boolean {
  try {
    const stat = fstatSync(fd);
    return stat.isFIFO() || stat.isSocket();
  } catch {
    return false;
  }
}

/** A destination for `fd`, a pipe or a socket (isPipe). */
export function pipeDestination(fd: number, options: PipeDestinationOptions = {}): LogDestination {
  const maxBuffered = options.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
  const batchBytes = options.batchBytes ?? BATCH_BYTES;
  // libuv makes the descriptor non-blocking: a write the reader cannot take waits in the stream's buffer, not in the process.
  const stream = new net.Socket({ fd, readable: false, writable: true });
  // As Node does for process.stdout: the descriptor is never closed, even once broken, so that no file opened later takes its number.
  stream._destroy = (err: Error | null, callback: (err: Error | null) => void) => callback(err);
  let broken = false;
  stream.on('error', () => {
    // EPIPE (the reader went away) or any other failure: every line from now on is dropped.
    broken = true;
  });

  let batch: string[] = [];
  let batchSize = 0;
  let dropped = 0;
  // Dropped since the last line that got through: said in a line of its own once lines get through again.
  let droppedUnreported = 0;

  const writeBatch = () => {
    if (batchSize === 0) return;
    const text = batch.join('');
    batch = [];
    batchSize = 0;
    if (!broken) stream.write(text);
  };

  const destination: LogDestination = {
    write(line: string) {
      if (broken || stream.writableLength + batchSize + line.length > maxBuffered) {
        dropped++;
        droppedUnreported++;
        return;
      }
      if (droppedUnreported > 0) {
        const note = droppedLine(droppedUnreported);
        batch.push(note);
        batchSize += note.length;
        droppedUnreported = 0;
      }
      batch.push(line);
      batchSize += line.length;
      if (batchSize >= batchBytes) writeBatch();
    },
    flush(done?: () => void) {
      writeBatch();
      if (done === undefined) return;
      if (broken || stream.writableLength === 0) {
        setImmediate(done);
        return;
      }
      const finish = () => {
        stream.off('drain', finish);
        stream.off('error', finish);
        done();
      };
      stream.on('drain', finish);
      stream.on('error', finish);
    },
    get dropped() {
      return dropped;
    },
  };

  setInterval(() => writeBatch(), options.flushEveryMs ?? FLUSH_EVERY_MS).unref();
  // One try that cannot block (the descriptor is non-blocking), for an exit that did not flush first (a crash):
  // only when nothing is queued before the batch, so that lines never reach the reader out of order.
  process.once('exit', () => {
    if (broken || batchSize === 0 || stream.writableLength > 0) return;
    try {
      writeSync(fd, batch.join(''));
    } catch {
      // The reader cannot take it: dropped, as any other line would be.
    }
  });
  return destination;
}

/** The line said when lines were dropped, in pino's JSON shape (level 40: warn). */
function droppedLine(count: number): string {
  return `${JSON.stringify({ level: 40, time: Date.now(), service: 'student-notification', dropped: count, msg: 'log lines dropped: the log destination did not take them in time' })}\n`;
}
