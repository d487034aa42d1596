// The schools to seed (docs/migration.md#seed-from-the-legacy-service): one
// base URL a line, as GetStudentSchool's school_base_url takes it, optionally
// followed by the school's name for a school not stored yet; blank lines and
// lines starting with # are skipped.
import { readFile } from 'node:fs/promises';
import { schoolKey } from '../../domain';

export interface SchoolEntry {
  /** As written in the file: what is sent to the legacy service. */
  readonly baseUrl: string;
  /** The store's key of the school. */
  readonly key: string;
  readonly name: string | null;
  readonly line: number;
}

const MAX_FILE_BYTES = 16 * 1024 * 1024;

export class SchoolsFileError extends Error {
  override readonly name = 'SchoolsFileError';
}

export async function readSchoolsFile(file: string): Promise<SchoolEntry[]> {
  let text: string;
  try {
    const bytes = await readFile(file);
    if (bytes.byteLength > MAX_FILE_BYTES)
      throw new SchoolsFileError(`${file} is larger than ${MAX_FILE_BYTES} bytes.`);
    text = bytes.toString('utf8');
  } catch (error) {
    if (error instanceof SchoolsFileError) throw error;
    throw new SchoolsFileError(
      `${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`,
    );
  }
  return parseSchools(file, text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
}

export function parseSchools(file: string, text: string): SchoolEntry[] {
  const schools = new Map<string, SchoolEntry>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const [baseUrl = '', ...rest] = line.split(/\s+/);
    const url = URL.canParse(baseUrl) ? new URL(baseUrl) : null;
    if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:') || baseUrl.length > 512)
      throw new SchoolsFileError(
        `${file} line ${index + 1}: not a school base URL (http:// or https://, at most 512 characters).`,
      );
    const key = schoolKey(baseUrl);
    const name = rest.join(' ').trim();
    // The first line of a school wins; a repeat would only fetch it twice.
    if (!schools.has(key))
      schools.set(key, { baseUrl, key, name: name === '' ? null : name.slice(0, 256), line: index + 1 });
  });
  if (schools.size === 0) throw new SchoolsFileError(`${file} names no school.`);
  return [...schools.values()];
}
