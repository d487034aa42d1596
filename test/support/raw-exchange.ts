// Recorded client requests and the answers they got, in the form the fixtures
// keep them (test/interop/fixtures) and the replay test compares them.
import net from 'node:net';
import { HttpMessageSplitter, type HttpMessage } from './http-messages';

/** Headers of an answer that depend on the moment or the connection, not on the request. */
const VOLATILE_RESPONSE_HEADERS = new Set(['date', 'connection', 'keep-alive']);

function bodyBytes(message: HttpMessage): Buffer {
  return message.raw.subarray(message.raw.indexOf('\r\n\r\n') + 4);
}

function assemble(startLine: string, headers: readonly (readonly [string, string])[], body: Buffer): Buffer {
  const head = [startLine, ...headers.map(([name, value]) => `${name}: ${value}`)].join('\r\n');
  return Buffer.concat([Buffer.from(`${head}\r\n\r\n`, 'latin1'), body]);
}

/**
 * The request as the client sent it, for another server: Host names `host`,
 * Content-Length matches the body (fixtures may be edited by hand). Header
 * order, spelling and every other byte stay as recorded.
 */
export function retarget(request: HttpMessage, host: string): Buffer {
  const body = bodyBytes(request);
  const headers = request.head.headers.map(([name, value]): [string, string] => {
    const lower = name.toLowerCase();
    if (lower === 'host') return [name, host];
    if (lower === 'content-length') return [name, String(body.length)];
    return [name, value];
  });
  return assemble(request.head.startLine, headers, body);
}

/** The answer without the headers that change from run to run: what a fixture pins. */
export function stableResponse(response: HttpMessage): Buffer {
  const headers = response.head.headers.filter(([name]) => !VOLATILE_RESPONSE_HEADERS.has(name.toLowerCase()));
  return assemble(response.head.startLine, headers, bodyBytes(response));
}

/** Sends bytes as they are over a new connection and reads the one final answer (interim 100 Continue skipped). */
export function sendRaw(port: number, request: Buffer, timeoutMs = 5000): Promise<HttpMessage> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const finish = (outcome: () => void) => {
      clearTimeout(timer);
      socket.destroy();
      outcome();
    };
    const responses = new HttpMessageSplitter('response', (message) => finish(() => resolve(message)));
    socket.on('data', (chunk: Buffer) => responses.push(chunk));
    socket.on('end', () => responses.end());
    socket.on('error', (err) => finish(() => reject(err)));
    socket.on('close', () => finish(() => reject(new Error('the connection closed without an answer'))));
    socket.write(request);
  });
}
