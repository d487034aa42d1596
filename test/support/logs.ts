// A logger whose lines are kept as parsed objects, for tests that check what is logged.
import pino from 'pino';

export function capturingLogger(level = 'debug') {
  const lines: Record<string, unknown>[] = [];
  return {
    lines,
    logger: pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }),
  };
}
