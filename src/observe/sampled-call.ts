// What the shadow calls and the request recording (docs/migration.md) take
// from a request before it runs: whether it is a call in the sampled share,
// and its headers as a replay sends them again.
import type { IncomingMessage } from 'node:http';
import { replayableHeaders } from '../migration';

export interface SampledCall {
  readonly method: 'GET' | 'POST';
  /** Path and query, as the client sent them. */
  readonly url: string;
}

/** A GET or POST to an .asmx path in the sampled share, or null: anything else costs no more. */
export function sampledCall(req: IncomingMessage, sample: number, random: () => number): SampledCall | null {
  const method = req.method;
  if (method !== 'GET' && method !== 'POST') return null;
  const url = req.url ?? '/';
  return /\.asmx/i.test(url) && random() < sample ? { method, url } : null;
}

/** The headers to send the request again with; without Content-Encoding, as the body kept was read inflated. */
export function replayHeaders(req: IncomingMessage, options: { keepCredentials: boolean }): Record<string, string> {
  const headers = replayableHeaders(req.headers, options);
  delete headers['content-encoding'];
  return headers;
}
