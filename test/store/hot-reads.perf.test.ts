import { performance } from 'node:perf_hooks';
import type { DataSet } from '../../src/store';
import { storeVariants, type TestStore } from '../support/stores';

// A measurement, not a check: run with STORE_PERF=1 to print µs per call.
const enabled = process.env.STORE_PERF === '1';
const SCHOOL = 'https://big.school.example';

async function perCall(calls: number, work: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < Math.min(1_000, calls); i++) await work();
  const start = performance.now();
  for (let i = 0; i < calls; i++) await work();
  return ((performance.now() - start) * 1_000) / calls;
}

if (!enabled)
  describe('hot reads', () => {
    it.skip('a measurement, not a check: STORE_PERF=1 runs it', () => undefined);
  });

if (enabled)
  describe.each(storeVariants())('hot reads on $name', (variant) => {
    let ctx: TestStore;

    beforeAll(async () => {
      ctx = await variant.create();
      const data: DataSet = {
        schools: [{ baseUrl: SCHOOL, name: 'Big' }],
        devices: Array.from({ length: 5_000 }, (_, i) => ({
          id: `dev-${i}`,
          token: `token-${i}`,
          platform: 'android' as const,
        })),
        students: Array.from({ length: 5_000 }, (_, i) => ({
          id: String(100_000 + i),
          school: SCHOOL,
          fullName: `Student ${(i * 7919) % 5_000}`,
          deviceId: `dev-${i}`,
          active: '1',
          classId: '7A',
        })),
      };
      await ctx.store.dataSet.writeDataSet(data);
    }, 60_000);
    afterAll(() => ctx.cleanup());

    it('getDeviceToken, 20,000 sequential calls', async () => {
      let i = 0;
      const micros = await perCall(20_000, () =>
        Promise.resolve(ctx.store.records.getDeviceToken(`dev-${i++ % 5_000}`)),
      );
      console.log(`${variant.name} getDeviceToken: ${micros.toFixed(1)} µs/call`);
    }, 120_000);

    it('findStudent, 20,000 sequential calls', async () => {
      let i = 0;
      const micros = await perCall(20_000, () => ctx.store.records.findStudent(String(100_000 + (i++ % 5_000))));
      console.log(`${variant.name} findStudent: ${micros.toFixed(1)} µs/call`);
    }, 120_000);

    it('listStudentsOfSchool over 5,000 students, 200 calls', async () => {
      const micros = await perCall(200, () => Promise.resolve(ctx.store.records.listStudentsOfSchool(SCHOOL, '1')));
      expect(await ctx.store.records.listStudentsOfSchool(SCHOOL, '1')).toHaveLength(5_000);
      console.log(`${variant.name} listStudentsOfSchool (5,000 rows): ${micros.toFixed(0)} µs/call`);
    }, 120_000);
  });
