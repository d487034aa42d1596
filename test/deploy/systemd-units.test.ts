// The systemd units (deploy/systemd) as systemd reads them: `systemd-analyze
// verify` finds nothing to say, and `systemd-analyze security` rates their
// sandbox "OK" or better (an exposure below 5 of 10). The units start Node at
// /usr/bin/node; the check runs on a copy pointing at the Node running this
// test, since verify insists that the program exists.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, secretSettingNames } from '../../src/config';
import { describeWithTools, findTool } from '../support/tools';

const ROOT = path.resolve(__dirname, '../..');
const SYSTEMD_DIR = path.join(ROOT, 'deploy/systemd');
const UNITS = ['student-notification-service.service', 'student-notification-worker.service'];
const analyze = findTool('systemd-analyze', 'SYSTEMD_ANALYZE');
// systemd's levels, best first; OK and better are below an exposure of 5.
const GOOD_LEVELS = ['PERFECT', 'SAFE', 'OK'];

function unitText(unit: string): string {
  return readFileSync(path.join(SYSTEMD_DIR, unit), 'utf8');
}

/** The values of `key=` in a unit, in order. */
function settings(text: string, key: string): string[] {
  return [...text.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1]);
}

describe('systemd units, as written', () => {
  it.each(UNITS)('%s stops later than the service may take to stop', (unit) => {
    const text = unitText(unit);
    const { shutdownTimeoutMs } = loadConfig({});
    // The process exits at the latest 2 s after SHUTDOWN_TIMEOUT_MS (docs/operating.md#graceful-shutdown).
    expect(Number(settings(text, 'TimeoutStopSec')[0]) * 1000).toBeGreaterThan(shutdownTimeoutMs + 2000);
    expect(settings(text, 'KillSignal')).toEqual(['SIGTERM']);
    expect(settings(text, 'Restart')).toEqual(['on-failure']);
    // V8's JIT writes the code it runs.
    expect(settings(text, 'MemoryDenyWriteExecute')).toEqual([]);
  });

  it('run as the user the sysusers file creates, with DATA_DIR in their state directory', () => {
    const sysusers = readFileSync(path.join(SYSTEMD_DIR, 'student-notification-service.sysusers.conf'), 'utf8');
    const user = /^u (\S+) /m.exec(sysusers)?.[1];
    for (const unit of UNITS) {
      const text = unitText(unit);
      expect({ unit, user: settings(text, 'User') }).toEqual({ unit, user: [user] });
      const state = settings(text, 'StateDirectory')[0];
      expect(settings(text, 'Environment').join(' ')).toContain(`DATA_DIR=/var/lib/${state} `);
    }
  });

  it('hand the service its secrets as credentials, each read through its _FILE setting, none in the settings file', () => {
    const secrets = new Set(secretSettingNames);
    const service = unitText('student-notification-service.service');
    const credentials = settings(service, 'LoadCredential');
    expect(credentials).toEqual(['admin_token:/etc/student-notification-service/admin_token']);
    for (const unit of UNITS) {
      const text = unitText(unit);
      const environment = settings(text, 'Environment').flatMap((line) => line.split(' '));
      for (const credential of settings(text, 'LoadCredential')) {
        const [name, source] = credential.split(':');
        expect(source).toBe(`/etc/student-notification-service/${name}`);
        // The setting reads the unit's copy, in its credentials folder (%d), under the same name.
        const variable = `${name.toUpperCase()}_FILE`;
        expect(secrets.has(name.toUpperCase())).toBe(true);
        expect(environment).toContain(`${variable}=%d/${name}`);
      }
    }
    const example = readFileSync(path.join(SYSTEMD_DIR, 'env.example'), 'utf8');
    const named = [...example.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]);
    expect(named.filter((name) => secrets.has(name))).toEqual([]);
  });

  it('name only real settings in the example environment file', () => {
    const reference = readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8');
    const names = [
      ...readFileSync(path.join(SYSTEMD_DIR, 'env.example'), 'utf8').matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm),
    ];
    expect(names.length).toBeGreaterThan(5);
    expect(names.map((m) => m[1]).filter((name) => !reference.includes(`### \`${name}\``))).toEqual([]);
  });
});

describeWithTools('systemd units (systemd-analyze)', { 'systemd-analyze': analyze }, "Debian's systemd package", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sns-units-'));
    for (const unit of UNITS)
      writeFileSync(path.join(dir, unit), unitText(unit).replaceAll('/usr/bin/node', realpathSync(process.execPath)));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(UNITS)('%s passes systemd-analyze verify without a warning', (unit) => {
    const result = spawnSync(analyze as string, ['verify', path.join(dir, unit)], { cwd: dir, encoding: 'utf8' });
    // verify exits 0 after an unknown key or a bad value too: only silence is a pass.
    expect(`${result.stdout}${result.stderr}`).toBe('');
    expect(result.status).toBe(0);
  });

  it.each(UNITS)('%s is sandboxed: exposure "OK" or better', (unit) => {
    const result = spawnSync(analyze as string, ['security', '--offline=yes', '--no-pager', path.join(dir, unit)], {
      cwd: dir,
      encoding: 'utf8',
    });
    const overall = /Overall exposure level for \S+: (\d+(?:\.\d+)?) (\w+)/.exec(result.stdout);
    if (overall === null) throw new Error(`no exposure level in:\n${result.stdout}${result.stderr}`);
    console.log(`${unit}: exposure ${overall[1]} ${overall[2]} (systemd-analyze security --offline=yes)`);
    expect({ unit, level: overall[2] }).toEqual({ unit, level: expect.stringMatching(`^(${GOOD_LEVELS.join('|')})$`) });
    expect(Number(overall[1])).toBeLessThan(5);
  });
});
