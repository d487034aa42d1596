// The seeding's checkpoint (docs/migration.md#seed-from-the-legacy-service):
// which schools are written, with the report of each, so that a second run
// skips them and still prints the whole report. Written after each school's
// transaction commits, to a temporary file renamed over the old one, so a
// crash leaves the previous checkpoint whole; a school written but not yet
// checkpointed is fetched again, which the upserts make harmless.
import { readFile, rename, writeFile } from 'node:fs/promises';
import type { FileReport } from '../importer';

const FORMAT = 'legacy-seed/1';
const MAX_STATE_BYTES = 256 * 1024 * 1024;

export interface SeedState {
  readonly legacyUrl: string;
  /** School key → its report, for the schools written. */
  readonly schools: Map<string, FileReport>;
}

export class SeedStateError extends Error {
  override readonly name = 'SeedStateError';
}

export async function loadSeedState(file: string, legacyUrl: string, refresh: boolean): Promise<SeedState> {
  let text: string;
  try {
    const bytes = await readFile(file);
    if (bytes.byteLength > MAX_STATE_BYTES)
      throw new SeedStateError(`${file} is larger than ${MAX_STATE_BYTES} bytes.`);
    text = bytes.toString('utf8');
  } catch (error) {
    if (error instanceof SeedStateError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { legacyUrl, schools: new Map() };
    throw new SeedStateError(`${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}.`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new SeedStateError(`${file} is not a seeding checkpoint (not JSON); remove it or name another with --state.`);
  }
  const state = document as { format?: unknown; legacyUrl?: unknown; schools?: unknown };
  if (
    state.format !== FORMAT ||
    typeof state.legacyUrl !== 'string' ||
    typeof state.schools !== 'object' ||
    state.schools === null
  )
    throw new SeedStateError(
      `${file} is not a seeding checkpoint (${FORMAT}); remove it or name another with --state.`,
    );
  if (refresh) return { legacyUrl, schools: new Map() };
  if (state.legacyUrl !== legacyUrl)
    throw new SeedStateError(
      `${file} is the checkpoint of a seeding from ${state.legacyUrl}, not ${legacyUrl}: give --refresh to start over, or another --state.`,
    );
  return { legacyUrl, schools: new Map(Object.entries(state.schools as Record<string, FileReport>)) };
}

export async function saveSeedState(file: string, state: SeedState): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  const document = { format: FORMAT, legacyUrl: state.legacyUrl, schools: Object.fromEntries(state.schools) };
  await writeFile(temporary, `${JSON.stringify(document)}\n`);
  await rename(temporary, file);
}
