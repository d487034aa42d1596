// What the seeding's tests share: the store a fake legacy's data should
// become, the options of a quick seeding, and fake legacies closed after each test.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { schoolKey } from '../../src/domain';
import type { SeedOptions } from '../../src/legacy-kit/seed';
import { parseSchools } from '../../src/legacy-kit/seed/schools-file';
import type { DataSet } from '../../src/store';
import { startFakeAsmx, type FakeAsmx, type FakeAsmxData } from '../support/fake-asmx';

type Keyed = { readonly id: string };
const byId = (a: Keyed, b: Keyed) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Schools, students and devices, sorted by key. */
export interface SeededRecords {
  readonly schools: readonly unknown[];
  readonly students: readonly Keyed[];
  readonly devices: readonly Keyed[];
}

/** The data set the fake's data seeds, in the export's shape, sorted by key; schools named after their host. */
export function expectedDataSet(data: FakeAsmxData): SeededRecords {
  const schools = [...data.schools.keys()].sort().map((url) => ({
    baseUrl: url,
    name: new URL(url).host,
    timeZone: 'UTC',
    quietHours: null,
    pushOptions: null,
    fcmProject: null,
  }));
  const students = [...data.schools.entries()].flatMap(([url, list]) =>
    list.map((s) => ({
      id: s.id as string,
      school: schoolKey(url),
      fullName: s.fullName as string,
      deviceId: s.deviceId,
      active: s.active,
      classId: null,
    })),
  );
  const deviceIds = new Set(students.flatMap((s) => (s.deviceId === null ? [] : [s.deviceId])));
  const devices = [...deviceIds].map((id) => ({ id, token: data.tokens.get(id) ?? null, platform: null }));
  return { schools, students: students.sort(byId), devices: devices.sort(byId) };
}

/** The stored data set in the same order. */
export function sorted(data: Required<DataSet>): SeededRecords {
  return {
    schools: [...data.schools].sort((a, b) => (a.baseUrl < b.baseUrl ? -1 : a.baseUrl > b.baseUrl ? 1 : 0)),
    students: [...data.students].sort(byId),
    devices: [...data.devices].sort(byId),
  };
}

export function schoolsOf(data: FakeAsmxData): string {
  return [...data.schools.keys()].join('\n');
}

/** Options for a seeding from `url` of the fake's schools, checkpointed in a fresh folder. */
export function seedOptions(url: string, data: FakeAsmxData, overrides: Partial<SeedOptions> = {}): SeedOptions {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sns-seed-'));
  return {
    baseUrl: url,
    schools: parseSchools('schools.txt', schoolsOf(data)),
    statePath: path.join(dir, 'schools.txt.seed-state.jsonl'),
    concurrency: 4,
    rate: 0,
    timeoutMs: 5000,
    retries: 3,
    backoffMs: 5,
    maxStudents: 10_000,
    maxListBytes: 10_000 * 2048,
    ...overrides,
  };
}

/** Starts fake legacies for the test at hand; each is closed after it (registers an afterEach). */
export function fakesPerTest(): (
  data: FakeAsmxData,
  options?: Parameters<typeof startFakeAsmx>[1],
) => Promise<FakeAsmx> {
  const fakes: FakeAsmx[] = [];
  afterEach(async () => {
    await Promise.all(fakes.splice(0).map((fake) => fake.close()));
  });
  return async (data, options = {}) => {
    const started = await startFakeAsmx(data, options);
    fakes.push(started);
    return started;
  };
}
