// The seeding's checkpoint (docs/migration.md#seed-from-the-legacy-service):
// which schools are written, with the report of each, so that a second run
// skips them and still prints the whole report. JSON Lines: a header naming
// the legacy, then one line a school, appended once the school's
// transaction has committed, so that the file grows with the schools rather
// than being rewritten for each. A crash can leave the last line torn: it is
// dropped on the next load (that school is fetched again, which the upserts
// make harmless) and the file rewritten whole before anything is appended.
import { appendFile, readFile, rename, writeFile } from 'node:fs/promises';
import type { FileReport } from '../../import/importer';

const FORMAT = 'legacy-seed/2';
const MAX_STATE_BYTES = 256 * 1024 * 1024;

export interface SeedState {
  readonly legacyUrl: string;
  /** School key → its report, for the schools written. */
  readonly schools: Map<string, FileReport>;
  /** The file must be written whole before the next append: new, refreshed, or with a torn last line. */
  rewrite: boolean;
}

export class SeedStateError extends Error {
  override readonly name = 'SeedStateError';
}

const notACheckpoint = (file: string, why: string) =>
  new SeedStateError(`${file} is not a seeding checkpoint (${why}); remove it or name another with --state.`);

export async function loadSeedState(file: string, legacyUrl: string, refresh: boolean): Promise<SeedState> {
  let text: string;
  try {
    const bytes = await readFile(file);
    if (bytes.byteLength > MAX_STATE_BYTES)
      throw new SeedStateError(`${file} is larger than ${MAX_STATE_BYTES} bytes.`);
    text = bytes.toString('utf8');
  } catch (error) {
    if (error instanceof SeedStateError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { legacyUrl, schools: new Map(), rewrite: true };
    throw new SeedStateError(`${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}.`);
  }
  const lines = text.split('\n').filter((line) => line !== '');
  const header = parseLine(lines[0] ?? '') as { format?: unknown; legacyUrl?: unknown } | null;
  if (header === null || header.format !== FORMAT || typeof header.legacyUrl !== 'string')
    throw notACheckpoint(file, `its first line is no ${FORMAT} header`);
  if (refresh) return { legacyUrl, schools: new Map(), rewrite: true };
  if (header.legacyUrl !== legacyUrl)
    throw new SeedStateError(
      `${file} is the checkpoint of a seeding from ${header.legacyUrl}, not ${legacyUrl}: give --refresh to start over, or another --state.`,
    );
  const schools = new Map<string, FileReport>();
  let rewrite = false;
  lines.slice(1).forEach((line, index) => {
    const entry = parseLine(line) as { key?: unknown; report?: unknown } | null;
    if (entry === null || typeof entry.key !== 'string' || typeof entry.report !== 'object' || entry.report === null) {
      // Only the last line can be torn by a crash; anything else is not ours.
      if (index === lines.length - 2) rewrite = true;
      else throw notACheckpoint(file, `line ${index + 2} is no school`);
      return;
    }
    schools.set(entry.key, entry.report as FileReport);
  });
  return { legacyUrl, schools, rewrite };
}

/** Records a school as written. */
export async function checkpointSchool(file: string, state: SeedState, key: string, report: FileReport): Promise<void> {
  state.schools.set(key, report);
  if (state.rewrite) {
    // Whole, through a temporary file renamed over the old one: a crash leaves one or the other.
    const lines = [
      JSON.stringify({ format: FORMAT, legacyUrl: state.legacyUrl }),
      ...[...state.schools].map(([school, entry]) => JSON.stringify({ key: school, report: entry })),
    ];
    const temporary = `${file}.${process.pid}.tmp`;
    // The reports name rows of a roster: the file is its owner's only.
    await writeFile(temporary, `${lines.join('\n')}\n`, { mode: 0o600 });
    await rename(temporary, file);
    state.rewrite = false;
    return;
  }
  await appendFile(file, `${JSON.stringify({ key, report })}\n`, { mode: 0o600 });
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return null;
  }
}
