// What the shadow calls and the request recording (docs/migration.md) take
// from a request before it runs: whether it is a call in the sampled share,
// and its headers as a replay sends them again.
import type { IncomingMessage } from 'node:http';
import { replayableHeaders } from '../compare';

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

/** Headers that say where a request came from: a caller sets them as it likes, and they name the caller. */
const FORWARDING = /^(?:x-forwarded-.+|forwarded|x-real-ip)$/;

/**
 * The headers to send the request again with: never Cookie,
 * Proxy-Authorization, the hop-by-hop headers (with those Connection names) or
 * the caller's X-Forwarded-* / Forwarded; Authorization only when asked for
 * (SHADOW_FORWARD_AUTHORIZATION). Without Content-Encoding, as the body kept
 * was read inflated.
 */
export function replayHeaders(req: IncomingMessage, options: { keepAuthorization: boolean }): Record<string, string> {
  const headers = replayableHeaders(req.headers, { keepCredentials: false });
  delete headers['content-encoding'];
  const connection = req.headers.connection ?? '';
  for (const name of connection.split(',')) delete headers[name.trim().toLowerCase()];
  for (const name of Object.keys(headers)) if (FORWARDING.test(name)) delete headers[name];
  const authorization = req.headers.authorization;
  if (options.keepAuthorization && authorization !== undefined) headers.authorization = authorization;
  return headers;
}
