import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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

  describe("the shadow's credentials for the legacy", () => {
    const SHADOW_URL = 'http://legacy.example';
    it("sends none by default; the caller's only with SHADOW_FORWARD_AUTHORIZATION", () => {
      expect(loadConfig({ SHADOW_URL }).shadow).toMatchObject({ forwardAuthorization: false, credentials: null });
      expect(loadConfig({ SHADOW_URL, SHADOW_FORWARD_AUTHORIZATION: 'true' }).shadow).toMatchObject({
        forwardAuthorization: true,
        credentials: null,
      });
    });

    it('reads SHADOW_USER with SHADOW_PASSWORD, or with the file SHADOW_PASSWORD_FILE names, its last newline dropped', () => {
      const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'sns-config-')), 'password');
      writeFileSync(file, ' with spaces: \n');
      expect(loadConfig({ SHADOW_URL, SHADOW_USER: 'shadow', SHADOW_PASSWORD_FILE: file }).shadow?.credentials).toEqual(
        {
          user: 'shadow',
          password: ' with spaces: ',
        },
      );
      expect(loadConfig({ SHADOW_URL, SHADOW_USER: 'shadow', SHADOW_PASSWORD: 'pw' }).shadow?.credentials).toEqual({
        user: 'shadow',
        password: 'pw',
      });
    });

    it.each([
      [{ SHADOW_PASSWORD: 'hunter22' }, /SHADOW_PASSWORD and SHADOW_PASSWORD_FILE need SHADOW_USER/],
      [{ SHADOW_USER: 'shadow' }, /SHADOW_USER needs its password in one of SHADOW_PASSWORD or SHADOW_PASSWORD_FILE/],
      [
        { SHADOW_USER: 'shadow', SHADOW_PASSWORD: 'hunter22', SHADOW_PASSWORD_FILE: '/etc/hostname' },
        /SHADOW_PASSWORD and SHADOW_PASSWORD_FILE are both set/,
      ],
      [
        { SHADOW_USER: 'shadow', SHADOW_PASSWORD: 'hunter22', SHADOW_FORWARD_AUTHORIZATION: 'true' },
        /SHADOW_USER and SHADOW_FORWARD_AUTHORIZATION exclude each other/,
      ],
      [{ SHADOW_USER: 'sha:dow', SHADOW_PASSWORD: 'hunter22' }, /SHADOW_USER must be a user name without colons/],
      [
        { SHADOW_USER: 'shadow', SHADOW_PASSWORD_FILE: '/nonexistent/pw' },
        /SHADOW_PASSWORD_FILE: cannot read \/nonexistent\/pw: ENOENT/,
      ],
    ])('refuses %p, never repeating the password', (env, message) => {
      expect(() => loadConfig({ SHADOW_URL, ...env })).toThrow(message);
      expect(() => loadConfig({ SHADOW_URL, ...env })).not.toThrow(/hunter22/);
    });
  });
});
