// The settings of the access limits: audit retention and the budgets' merge interval.
import { ConfigError, loadConfig } from '../../src/config';

describe('configuration of the access limits', () => {
  it('keeps audit entries 90 days and merges budgets every 2 s by default', () => {
    expect(loadConfig({})).toMatchObject({ auditRetentionDays: 90, accessSyncIntervalMs: 2000 });
  });

  it('reads both, and off for the retention', () => {
    expect(loadConfig({ AUDIT_RETENTION_DAYS: '365', ACCESS_SYNC_INTERVAL_MS: '500' })).toMatchObject({
      auditRetentionDays: 365,
      accessSyncIntervalMs: 500,
    });
    expect(loadConfig({ AUDIT_RETENTION_DAYS: 'OFF' }).auditRetentionDays).toBeNull();
  });

  it.each([
    [{ AUDIT_RETENTION_DAYS: '0' }, /AUDIT_RETENTION_DAYS must be a whole number of days from 1 to 3650, or off/],
    [{ AUDIT_RETENTION_DAYS: 'forever' }, /AUDIT_RETENTION_DAYS must be/],
    [{ ACCESS_SYNC_INTERVAL_MS: '10' }, /ACCESS_SYNC_INTERVAL_MS must be between 100 and 60000/],
    [{ ACCESS_SYNC_INTERVAL_MS: '2s' }, /ACCESS_SYNC_INTERVAL_MS must be a whole number/],
  ])('refuses %p with a clear message', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
