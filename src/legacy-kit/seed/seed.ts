// Seeds the store from the legacy service itself, school by school
// (docs/migration.md#seed-from-the-legacy-service): the school's students
// with show_active 1 and 0, then the token of every device they name, checked
// and written like a file of the import (same rules, same report), each
// school in one transaction, then checkpointed.
import type { StudentInfo } from '../../contract';
import type { ImportStore } from '../../store';
import { createSourceImporter, type FileReport, type ImportReport } from '../../import/importer';
import type { Source, SourceRow } from '../../import/source';
import { createCallGate } from './call-gate';
import { connectLegacy, LegacyServiceError, type LegacyClient, type LegacyClientOptions } from './legacy-client';
import type { SchoolEntry } from './schools-file';
import { checkpointSchool, loadSeedState } from './seed-state';

export interface SeedOptions extends Omit<LegacyClientOptions, 'gate'> {
  readonly schools: readonly SchoolEntry[];
  /** The checkpoint file. */
  readonly statePath: string;
  /** Fetch every school again, even those the checkpoint has. */
  readonly refresh?: boolean;
  /** Fetch and check, write nothing (the checkpoint neither). */
  readonly dryRun?: boolean;
  /** At most this many calls in flight (schools are fetched as many at once). */
  readonly concurrency: number;
  /** Calls started per second at most; 0: no pacing. */
  readonly rate: number;
  readonly progress?: SeedProgress;
  readonly now?: () => Date;
}

/** Counts only: no name, id or token ever reaches it. */
export interface SeedProgress {
  start(schools: number, skipped: number): void;
  school(progress: {
    readonly done: number;
    readonly total: number;
    readonly students: number;
    readonly failed: number;
  }): void;
  finish(): void;
}

export interface SeedResult {
  /** The import's report: one entry per school of the list, in its order. */
  readonly report: ImportReport;
  /** Schools the checkpoint had, not fetched again. */
  readonly skipped: number;
  /** Schools fetched by this run. */
  readonly fetched: number;
  /** Schools that could not be read or written (fetched again by the next run). */
  readonly failed: number;
  /** StudentInfo records read by this run. */
  readonly students: number;
}

export async function seedFromLegacy(store: ImportStore, options: SeedOptions): Promise<SeedResult> {
  const state = await loadSeedState(options.statePath, options.baseUrl, options.refresh === true);
  const todo = options.schools.filter((school) => !state.schools.has(school.key));
  const skipped = options.schools.length - todo.length;
  const gate = createCallGate(options.concurrency, options.rate);
  const client = await connectLegacy({ ...options, gate });
  const importer = createSourceImporter(store, { dryRun: options.dryRun, now: options.now });
  const reports = new Map<string, FileReport>();
  const progress = options.progress;
  progress?.start(todo.length, skipped);

  let done = 0;
  let failed = 0;
  let students = 0;
  // One school is written at a time: the checker's memory of keys is shared, and SQLite has one writer anyway.
  let writing: Promise<unknown> = Promise.resolve();
  const finish = async (school: SchoolEntry, source: Source): Promise<void> => {
    const step = writing.then(async () => {
      const report = await importer.importSource(source, 'record');
      reports.set(school.key, report);
      if (report.status === 'written') await checkpointSchool(options.statePath, state, school.key, report);
      else if (report.status === 'failed') failed++;
    });
    writing = step.catch(() => undefined);
    await step;
  };

  let next = 0;
  const worker = async (): Promise<void> => {
    for (let school = todo[next++]; school !== undefined; school = todo[next++]) {
      try {
        const { source, count } = await fetchSchool(client, store, school, options.maxStudents);
        students += count;
        await finish(school, source);
      } catch (error) {
        if (!(error instanceof LegacyServiceError)) throw error;
        failed++;
        reports.set(school.key, {
          file: school.baseUrl,
          status: 'failed',
          error: error.message,
          collections: [],
          rejected: [],
          notes: [],
        });
      }
      progress?.school({ done: ++done, total: todo.length, students, failed });
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, todo.length)) }, worker));
  } finally {
    progress?.finish();
  }

  const files = options.schools.flatMap((school) => {
    const report = reports.get(school.key) ?? state.schools.get(school.key);
    return report === undefined ? [] : [report];
  });
  const complete = files.every((file) => file.error === null && file.rejected.length === 0);
  return { report: { files, complete, refused: false }, skipped, fetched: todo.length, failed, students };
}

async function fetchSchool(
  client: LegacyClient,
  store: ImportStore,
  school: SchoolEntry,
  maxStudents: number,
): Promise<{ source: Source; count: number }> {
  const [active, inactive] = await settled([
    client.listStudents(school.baseUrl, '1'),
    client.listStudents(school.baseUrl, '0'),
  ]);
  if (active.length + inactive.length > maxStudents)
    throw new LegacyServiceError(`${school.baseUrl} has more than ${maxStudents} students (--max-students).`);

  // A record's number is its place in the answers, show_active 1 first.
  const listed: { info: StudentInfo; flag: '1' | '0'; record: number }[] = [
    ...active.map((info) => ({ info, flag: '1' as const })),
    ...inactive.map((info) => ({ info, flag: '0' as const })),
  ].map((entry, index) => ({ ...entry, record: index + 1 }));

  const deviceRecord = new Map<string, number>();
  const students: SourceRow[] = listed.map(({ info, flag, record }) => {
    const device = info.deviceId;
    if (device !== null && device.trim() !== '' && !deviceRecord.has(device)) deviceRecord.set(device, record);
    return {
      line: record,
      record: {
        id: info.studentId,
        school: school.baseUrl,
        fullName: info.fullName,
        deviceId: device,
        // The list it came in says the flag when the record does not.
        active: info.showActive ?? flag,
      },
    };
  });
  // An id too long to store is not asked for: the checks refuse its device and its student.
  const deviceIds = [...deviceRecord.keys()];
  const tokens = await settled(
    deviceIds.map((id) => (id.trim().length > 128 ? Promise.resolve(null) : client.readToken(id))),
  );
  const devices: SourceRow[] = deviceIds.map((id, i) => ({
    line: deviceRecord.get(id) ?? 0,
    record: { id, token: tokens[i] ?? null },
  }));

  // A school not stored yet is created, named as the list names it or after its address; a stored one keeps its name unless the list names it.
  const stored = (await store.existingKeys('schools', [school.key])).has(school.key);
  const schools: SourceRow[] =
    stored && school.name === null
      ? []
      : [{ line: 0, record: { baseUrl: school.baseUrl, name: school.name ?? new URL(school.baseUrl).host } }];

  const notes = [
    `GetStudentSchool listed ${active.length} students with show_active 1, then ${inactive.length} with 0 (record numbers count through both); ${deviceIds.length} device tokens read.`,
  ];
  return {
    source: { file: school.baseUrl, rows: { schools, devices, students }, unreadable: [], notes },
    count: listed.length,
  };
}

/**
 * Like Promise.all, but waits for every call before failing with the first
 * failure in order: a school's calls never outlive the school, and which
 * failure is told does not depend on timing.
 */
async function settled<T>(calls: readonly Promise<T>[]): Promise<T[]> {
  const outcomes = await Promise.allSettled(calls);
  const failure = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failure !== undefined) throw failure.reason;
  return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<T>).value);
}
