// The one line a driver prints per call, read and checked for shape so that
// nothing untyped leaves this file.
import { z } from 'zod';

const ReportedError = z.object({
  /** The exception's type as its language names it (`System.Web.Services.Protocols.SoapException`). */
  type: z.string(),
  message: z.string(),
  code: z.string().optional(),
});

const DriverLine = z.object({
  binding: z.string(),
  call: z.string(),
  ok: z.boolean(),
  value: z.unknown().optional(),
  error: ReportedError.optional(),
  /** Why a check needed a workaround for a client bug, shown next to its result. */
  note: z.string().optional(),
});

export type DriverLine = z.infer<typeof DriverLine>;
export type ReportedError = z.infer<typeof ReportedError>;

export interface DriverOutput {
  readonly lines: readonly DriverLine[];
  /** Lines that are not results: a runtime's warnings, a stack trace. */
  readonly other: readonly string[];
}

export function readDriverOutput(stdout: string): DriverOutput {
  const lines: DriverLine[] = [];
  const other: string[] = [];
  for (const text of stdout.split(/\r?\n/)) {
    if (text.trim() === '') continue;
    const parsed = parseJson(text);
    const line = parsed === undefined ? undefined : DriverLine.safeParse(parsed);
    if (line?.success) lines.push(line.data);
    else other.push(text);
  }
  return { lines, other };
}

function parseJson(text: string): unknown {
  if (!text.startsWith('{')) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
