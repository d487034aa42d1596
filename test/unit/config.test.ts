import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config';

describe('configuration', () => {
  it('has the defaults the README documents (docs/design.md#configuration-names)', () => {
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
