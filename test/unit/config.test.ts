import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config';
import { DEFAULT_GROUP_COMMIT_MS } from '../../src/store';

describe('configuration', () => {
  it('has the defaults docs/configuration.md documents (docs/design.md#configuration-names)', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      soapNamespace: 'http://tempuri.org/',
      dataDir: path.resolve('./data'),
      databaseUrl: null,
      demoData: true,
      bodyLimit: 1048576,
      trustProxy: false,
      helpPages: true,
      smsDefaultRegion: 'SY',
      smsAllowedCountries: ['SY'],
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '9090',
      SOAP_NAMESPACE: 'urn:school',
      DATA_DIR: '/tmp/x',
      DATABASE_URL: 'postgres://u@db/notify',
      DEMO_DATA: 'false',
      BODY_LIMIT: '2048',
      TRUST_PROXY: 'loopback, 10.0.0.0/8',
      HELP_PAGES: 'false',
      SMS_DEFAULT_REGION: 'lb',
      SMS_ALLOWED_COUNTRIES: 'LB,SY',
    });
    expect(config).toMatchObject({
      port: 9090,
      soapNamespace: 'urn:school',
      dataDir: '/tmp/x',
      databaseUrl: 'postgres://u@db/notify',
      demoData: false,
      bodyLimit: 2048,
      trustProxy: 'loopback, 10.0.0.0/8',
      helpPages: false,
      smsDefaultRegion: 'LB',
      smsAllowedCountries: ['LB', 'SY'],
    });
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
  });

  it('has the limits of a request and of connections (docs/operating.md)', () => {
    expect(loadConfig({})).toMatchObject({
      xmlMaxDepth: 64,
      connections: {
        headersTimeoutMs: 10000,
        requestTimeoutMs: 30000,
        keepAliveTimeoutMs: 5000,
        maxConnections: 4096,
        maxConnectionsPerAddress: 64,
      },
    });
    const config = loadConfig({
      XML_MAX_DEPTH: '16',
      HEADERS_TIMEOUT_MS: '2000',
      REQUEST_TIMEOUT_MS: '5000',
      KEEP_ALIVE_TIMEOUT_MS: '65000',
      MAX_CONNECTIONS: '500',
      MAX_CONNECTIONS_PER_ADDRESS: '50',
    });
    expect(config).toMatchObject({
      xmlMaxDepth: 16,
      connections: {
        headersTimeoutMs: 2000,
        requestTimeoutMs: 5000,
        keepAliveTimeoutMs: 65000,
        maxConnections: 500,
        maxConnectionsPerAddress: 50,
      },
    });
    expect(loadConfig({ MAX_CONNECTIONS_PER_ADDRESS: 'off' }).connections.maxConnectionsPerAddress).toBe(0);
    expect(loadConfig({}).connections.bodyMinRate).toBe(1024);
    expect(loadConfig({ BODY_MIN_RATE: '100' }).connections.bodyMinRate).toBe(100);
    expect(loadConfig({ BODY_MIN_RATE: 'off' }).connections.bodyMinRate).toBe(0);
    expect(() => loadConfig({ BODY_MIN_RATE: '0' })).toThrow(
      /BODY_MIN_RATE must be a whole number of bytes a second from 1 to 1073741824, or off/,
    );
    expect(() => loadConfig({ HEADERS_TIMEOUT_MS: '40000' })).toThrow(
      /HEADERS_TIMEOUT_MS \(40000\) must not be longer than REQUEST_TIMEOUT_MS \(30000\)/,
    );
    expect(() => loadConfig({ XML_MAX_DEPTH: '4' })).toThrow(/XML_MAX_DEPTH must be between 8 and 1024/);
    expect(() => loadConfig({ MAX_CONNECTIONS: '0' })).toThrow(/MAX_CONNECTIONS must be between 1 and 1000000/);
    expect(() => loadConfig({ MAX_CONNECTIONS_PER_ADDRESS: 'many' })).toThrow(
      /MAX_CONNECTIONS_PER_ADDRESS must be a whole number from 1 to 1000000, or off/,
    );
  });

  it('reads the values that are a whole number or off', () => {
    expect(loadConfig({})).toMatchObject({
      groupCommitMs: DEFAULT_GROUP_COMMIT_MS,
      auditRetentionDays: 90,
      connections: { maxConnectionsPerAddress: 64 },
    });
    expect(
      loadConfig({ STORE_GROUP_COMMIT_MS: '0', MAX_CONNECTIONS_PER_ADDRESS: '1', AUDIT_RETENTION_DAYS: '1' }),
    ).toMatchObject({
      groupCommitMs: 0,
      auditRetentionDays: 1,
      connections: { maxConnectionsPerAddress: 1 },
    });
    expect(
      loadConfig({
        STORE_GROUP_COMMIT_MS: ' 100 ',
        MAX_CONNECTIONS_PER_ADDRESS: '1000000',
        AUDIT_RETENTION_DAYS: '3650',
      }),
    ).toMatchObject({
      groupCommitMs: 100,
      auditRetentionDays: 3650,
      connections: { maxConnectionsPerAddress: 1000000 },
    });
    expect(
      loadConfig({ STORE_GROUP_COMMIT_MS: 'Off', MAX_CONNECTIONS_PER_ADDRESS: 'OFF', AUDIT_RETENTION_DAYS: 'off' }),
    ).toMatchObject({
      groupCommitMs: null,
      auditRetentionDays: null,
      connections: { maxConnectionsPerAddress: 0 },
    });
  });

  it.each([
    [
      { STORE_GROUP_COMMIT_MS: '101' },
      'STORE_GROUP_COMMIT_MS: STORE_GROUP_COMMIT_MS must be a whole number of milliseconds from 0 to 100, or off',
    ],
    [
      { STORE_GROUP_COMMIT_MS: '-1' },
      'STORE_GROUP_COMMIT_MS: STORE_GROUP_COMMIT_MS must be a whole number of milliseconds from 0 to 100, or off',
    ],
    [
      { STORE_GROUP_COMMIT_MS: '5ms' },
      'STORE_GROUP_COMMIT_MS: STORE_GROUP_COMMIT_MS must be a whole number of milliseconds from 0 to 100, or off',
    ],
    [
      { MAX_CONNECTIONS_PER_ADDRESS: '0' },
      'MAX_CONNECTIONS_PER_ADDRESS: MAX_CONNECTIONS_PER_ADDRESS must be a whole number from 1 to 1000000, or off',
    ],
    [
      { MAX_CONNECTIONS_PER_ADDRESS: '1000001' },
      'MAX_CONNECTIONS_PER_ADDRESS: MAX_CONNECTIONS_PER_ADDRESS must be a whole number from 1 to 1000000, or off',
    ],
    [
      { AUDIT_RETENTION_DAYS: '3651' },
      'AUDIT_RETENTION_DAYS: AUDIT_RETENTION_DAYS must be a whole number of days from 1 to 3650, or off',
    ],
    [
      { AUDIT_RETENTION_DAYS: '1.5' },
      'AUDIT_RETENTION_DAYS: AUDIT_RETENTION_DAYS must be a whole number of days from 1 to 3650, or off',
    ],
  ])('refuses %p, saying what it takes', (env, message) => {
    expect(() => loadConfig(env)).toThrow(`Invalid configuration:\n  ${message}`);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: ' ' })).toMatchObject({ port: 8080, databaseUrl: null });
  });

  it.each([
    [{ PORT: 'eighty' }, /PORT: PORT must be a whole number/],
    [{ PORT: '70000' }, /PORT must be between 0 and 65535/],
    [{ DEMO_DATA: 'maybe' }, /DEMO_DATA must be true or false/],
    [{ BODY_LIMIT: '10' }, /BODY_LIMIT must be between/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL must be a postgres/],
    [{ SOAP_NAMESPACE: 'not a uri' }, /SOAP_NAMESPACE must be an absolute URI/],
    [{ TRUST_PROXY: 'example.com' }, /TRUST_PROXY: "example.com" is not an address/],
    [{ SMS_DEFAULT_REGION: 'XX' }, /SMS_DEFAULT_REGION must be an ISO 3166 country code/],
    [{ SMS_ALLOWED_COUNTRIES: 'SY,ZZ' }, /SMS_ALLOWED_COUNTRIES: ZZ are not ISO 3166/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
  ])('refuses %p with a clear message', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('names every bad variable at once', () => {
    expect(() => loadConfig({ PORT: 'x', DEMO_DATA: 'y' })).toThrow(/PORT[\s\S]*DEMO_DATA/);
  });
});
