import { runRetryingVanishedSchemas } from '../../src/store/migrations/migrate';

const vanished = (schema: string) => Object.assign(new Error(`schema "${schema}" does not exist`), { code: '3F000' });

describe('migrating while other schemas are dropped', () => {
  it('tries again when another schema vanished under the migrator’s introspection', async () => {
    let calls = 0;
    await runRetryingVanishedSchemas(async () => {
      calls++;
      if (calls < 3) throw vanished('store_test_other');
    }, 'store_test_ours');
    expect(calls).toBe(3);
  });

  it('tries again when a table of another schema vanished with it', async () => {
    let calls = 0;
    await runRetryingVanishedSchemas(async () => {
      calls++;
      if (calls < 2)
        throw Object.assign(new Error('relation "store_test_other.push_notifications" does not exist'), {
          code: '42P01',
        });
    }, 'store_test_ours');
    expect(calls).toBe(2);
    const ours = Object.assign(new Error('relation "store_test_ours.push_notifications" does not exist'), {
      code: '42P01',
    });
    await expect(runRetryingVanishedSchemas(() => Promise.reject(ours), 'store_test_ours')).rejects.toBe(ours);
  });

  it('gives up when our own schema is missing, or on any other error', async () => {
    await expect(
      runRetryingVanishedSchemas(() => Promise.reject(vanished('store_test_ours')), 'store_test_ours'),
    ).rejects.toThrow('store_test_ours');
    const other = Object.assign(new Error('boom'), { code: '42P01' });
    await expect(runRetryingVanishedSchemas(() => Promise.reject(other), 'x')).rejects.toBe(other);
  });

  it('stops after a few tries', async () => {
    let calls = 0;
    const work = () => {
      calls++;
      return Promise.reject(vanished('store_test_other'));
    };
    await expect(runRetryingVanishedSchemas(work, 'store_test_ours')).rejects.toThrow('store_test_other');
    expect(calls).toBe(5);
  });
});
