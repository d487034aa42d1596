import { ConfigError, loadConfig } from '../../src/config';

describe('configuration of the operator surface', () => {
  it('has safe defaults: admin API off, JSON bodies off, metrics on PORT', () => {
    expect(loadConfig({})).toMatchObject({
      adminToken: null,
      jsonBodies: false,
      metricsPort: null,
      shutdownTimeoutMs: 10000,
      logFormat: 'auto',
    });
  });

  it('reads every new variable', () => {
    const config = loadConfig({
      ADMIN_TOKEN: ' 0123456789abcdef0123 ',
      JSON_BODIES: 'true',
      METRICS_PORT: '9464',
      SHUTDOWN_TIMEOUT_MS: '25000',
      LOG_FORMAT: 'json',
    });
    expect(config).toMatchObject({
      adminToken: '0123456789abcdef0123',
      jsonBodies: true,
      metricsPort: 9464,
      shutdownTimeoutMs: 25000,
      logFormat: 'json',
    });
  });

  it.each([
    [{ ADMIN_TOKEN: 'short' }, /ADMIN_TOKEN must be at least 16 characters/],
    [{ JSON_BODIES: 'sometimes' }, /JSON_BODIES must be true or false/],
    [{ METRICS_PORT: '99999' }, /METRICS_PORT must be between 0 and 65535/],
    [{ SHUTDOWN_TIMEOUT_MS: 'soon' }, /SHUTDOWN_TIMEOUT_MS must be a whole number/],
    [{ LOG_FORMAT: 'xml' }, /LOG_FORMAT/],
  ])('refuses %p with a clear message', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('never repeats the admin token in its complaint', () => {
    expect(() => loadConfig({ ADMIN_TOKEN: 'tooShortSecret' })).not.toThrow(/tooShortSecret/);
  });
});
