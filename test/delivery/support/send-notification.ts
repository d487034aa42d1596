// One SendNotificationType call over HTTP POST from a keep-alive agent: how
// the scale-out test and the delivery benchmarks (scripts/bench-delivery.ts,
// scripts/bench-scale-out.ts) queue pushes through a running service.
import http from 'node:http';

/** Resolves with the answer's status, or 0 when the exchange failed (the service was killed, the socket reset). */
export function sendNotification(
  agent: http.Agent,
  port: number,
  params: { readonly id: string; readonly baseUrlSchool: string; readonly TypeNotfication: string },
): Promise<number> {
  const body = new URLSearchParams(params).toString();
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/NotificationNotes.asmx/SendNotificationType',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(body);
  });
}
