import pino, { type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs; secrets are redacted wherever they appear in a logged object. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'student-notification' },
    redact: { paths: ['code', '*.code', 'phone', '*.phone', 'token', '*.token', 'req.headers.authorization'], censor: '[redacted]' },
  });
}
