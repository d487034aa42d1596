// npm run compare between two instances of this service, one changed so that
// each class of difference appears (docs/migration.md#compare).
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { classifyRequest, WRITE_OPERATIONS } from '../../src/legacy-kit/compare';
import type { DataSet } from '../../src/store';
import { FIXTURES } from '../support/fixtures';
import {
  dataFile,
  replaceInBody,
  runCompare,
  startInstance,
  startProxy,
  tableRow,
  tempDir,
  type Instance,
} from './support';

const withName = (id: string, fullName: string): DataSet => ({
  ...FIXTURES,
  students: (FIXTURES.students ?? []).map((s) => (s.id === id ? { ...s, fullName } : s)),
});
const without = (id: string): DataSet => ({
  ...FIXTURES,
  students: (FIXTURES.students ?? []).filter((s) => s.id !== id),
  notes: (FIXTURES.notes ?? []).filter((n) => n.studentId !== id),
  absences: (FIXTURES.absences ?? []).filter((a) => a.studentId !== id),
});

describe('npm run compare', () => {
  let primary: Instance;
  const others: { close(): Promise<void> }[] = [];
  let dir: string;
  let data: string;

  beforeAll(async () => {
    primary = await startInstance();
    dir = tempDir();
    data = dataFile(dir);
  });
  afterEach(async () => {
    for (const other of others.splice(0)) await other.close();
  });
  afterAll(async () => {
    await primary.close();
  });

  /** npm run compare of the primary against `candidateBase` over the fixtures' requests, with `extra` arguments. */
  const compareWith = (candidateBase: string, ...extra: string[]) =>
    runCompare(['--primary', primary.base, '--candidate', candidateBase, '--data', data, ...extra]);

  async function candidate(data?: DataSet): Promise<Instance> {
    const instance = await startInstance(data);
    others.push(instance);
    return instance;
  }

  it('finds nothing between two instances with the same data, over every binding, and exits 0', async () => {
    const same = await candidate();
    const run = await compareWith(same.base);
    expect(run.stdout).toContain('Nothing unexplained differs.');
    expect(run.code).toBe(0);
    for (const binding of ['soap11', 'soap12', 'http_get', 'http_post'])
      expect(tableRow(run.stdout, 'GetStudentSchool', binding)).toMatchObject({ differs: 0, error: 0 });
    expect(tableRow(run.stdout, 'NotificationNotes (documents)', 'document').sameBytes).toBeGreaterThan(0);
  });

  it('tells a changed name apart as other data (seeding), with the path of the field', async () => {
    const changed = await candidate(withName('1002', 'أحمد عليّ'));
    const run = await compareWith(changed.base);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('GetStudentSchool soap11 known: seeding: the candidate holds other values');
    expect(run.stdout).toMatch(/StudentInfo\[\d\]\/fullName\/text\(\)/);
    expect(tableRow(run.stdout, 'GetTokenDevice', 'soap11').differs).toBe(0);
  });

  it('tells a missing student apart as data the candidate lacks (seeding)', async () => {
    const missing = await candidate(without('1001'));
    const run = await compareWith(missing.base);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('GetStudentSchool http_get known: seeding: the candidate lacks data the primary has');
    expect(run.stdout).not.toContain('wire: the candidate answers differently');
  });

  it('tells another namespace apart as a wire difference', async () => {
    const same = await candidate();
    const other = await startProxy(same.base, (_request, answer) =>
      replaceInBody(answer, /xmlns="http:\/\/tempuri.org\/"/g, 'xmlns="http://tempuri.org/v2"'),
    );
    others.push(other);
    const reportDir = path.join(dir, 'namespace');
    const run = await compareWith(other.base, '--report', reportDir);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /: wire: the candidate answers differently; body at \/Envelope\/Body\/\w+Response \(namespace\)/,
    );
    const { entries } = JSON.parse(readFileSync(path.join(reportDir, 'report.json'), 'utf8'));
    const known = (binding: string) =>
      entries.find(
        (e: { operation: string; binding: string; case: string }) =>
          e.operation === 'GetTokenDevice' && e.binding === binding && e.case === 'known',
      );
    expect(known('soap11')).toMatchObject({
      outcome: 'differs',
      kind: 'wire',
      unexplained: [{ target: 'body', path: '/Envelope/Body/GetTokenDeviceResponse', what: 'namespace' }],
    });
    expect(known('http_get')).toMatchObject({ kind: 'wire', unexplained: [{ path: '/string', what: 'namespace' }] });
  });

  it('tells another fault text apart as a wire difference, and prefixes and attribute order as the same XML', async () => {
    const same = await candidate();
    const proxy = await startProxy(same.base, (_request, answer) => {
      const text = answer.body.toString('utf8');
      if (text.includes('<soap:Fault>'))
        return replaceInBody(answer, /<faultstring>[^<]*<\/faultstring>/, '<faultstring>Something else.</faultstring>');
      // Another prefix for the envelope, the namespace declarations in another order: the same XML.
      return replaceInBody(
        answer,
        /^(<\?xml[^>]*\?>)<soap:Envelope xmlns:soap="([^"]*)" xmlns:xsi="([^"]*)" xmlns:xsd="([^"]*)">(.*)<\/soap:Envelope>$/s,
        '$1<env:Envelope xmlns:xsd="$4" xmlns:xsi="$3" xmlns:env="$2">$5</env:Envelope>',
      )
        .body.toString('utf8')
        .includes('<env:Envelope')
        ? (() => {
            const renamed = replaceInBody(
              answer,
              /^(<\?xml[^>]*\?>)<soap:Envelope xmlns:soap="([^"]*)" xmlns:xsi="([^"]*)" xmlns:xsd="([^"]*)">(.*)<\/soap:Envelope>$/s,
              '$1<env:Envelope xmlns:xsd="$4" xmlns:xsi="$3" xmlns:env="$2">$5</env:Envelope>',
            );
            return replaceInBody(renamed, /<(\/?)soap:Body>/g, '<$1env:Body>');
          })()
        : answer;
    });
    others.push(proxy);
    const run = await compareWith(proxy.base);
    expect(run.code).toBe(1);
    const soap = tableRow(run.stdout, 'GetTokenDevice', 'soap11');
    expect(soap.sameXml).toBeGreaterThan(0);
    expect(soap.sameBytes).toBe(0);
    expect(run.stdout).toMatch(
      /GetTokenDevice soap11 \S+: wire: the candidate answers differently; body at \/Envelope\/Body\/Fault\/faultstring\/text\(\) \(text\)/,
    );
  });

  it('explains a difference an ignore rule accepts, counts the rule, and not where the rule does not apply', async () => {
    const changed = await candidate(withName('1002', 'أحمد عليّ'));
    const rules = path.join(dir, 'ignore.yaml');
    writeFileSync(
      rules,
      [
        'rules:',
        '  - id: renamed-student',
        '    operation: GetStudentSchool',
        '    binding: [soap11, soap12]',
        '    path: /Envelope/Body/GetStudentSchoolResponse/GetStudentSchoolResult/StudentInfo*/fullName/text()',
        '    reason: the name was corrected in the new service',
        '',
      ].join('\n'),
    );
    const run = await compareWith(changed.base, '--ignore', rules);
    expect(tableRow(run.stdout, 'GetStudentSchool', 'soap11')).toMatchObject({ explained: 1, differs: 0 });
    expect(tableRow(run.stdout, 'GetStudentSchool', 'soap12').differs).toBe(0);
    // Not over GET: the rule names the SOAP bindings only.
    expect(tableRow(run.stdout, 'GetStudentSchool', 'http_get').differs).toBeGreaterThan(0);
    expect(run.stdout).toMatch(/renamed-student: [1-9]/);
    expect(run.code).toBe(1);
  });

  it('reports a difference the two primaries show between themselves as noise, apart, and exits 0', async () => {
    // A token that changes on every answer, as a generated id would: on the primary, its twin and the candidate alike.
    let n = 0;
    const stamp = (_request: unknown, answer: Parameters<typeof replaceInBody>[0]) =>
      replaceInBody(answer, /fcm:AAAA-1001/, `fcm:AAAA-1001-${n++}`);
    const same = await candidate();
    const proxies = await Promise.all([
      startProxy(primary.base, stamp),
      startProxy(primary.base, stamp),
      startProxy(same.base, stamp),
    ]);
    others.push(...proxies);
    const [first, second, third] = proxies;
    const withTwin = await runCompare([
      '--primary',
      first.base,
      '--secondary',
      second.base,
      '--candidate',
      third.base,
      '--data',
      data,
    ]);
    expect(tableRow(withTwin.stdout, 'GetTokenDevice', 'http_get')).toMatchObject({ noise: 2, differs: 0 });
    expect(withTwin.code).toBe(0);
    const alone = await runCompare(['--primary', first.base, '--candidate', third.base, '--data', data]);
    expect(tableRow(alone.stdout, 'GetTokenDevice', 'http_get')).toMatchObject({ noise: 0, differs: 2 });
    expect(alone.code).toBe(1);
  });

  it('writes a self-contained HTML report with each difference side by side, escaped, and a JSON report', async () => {
    const changed = await candidate(withName('1003', `O'Brien & <Sons> "R"`));
    const reportDir = path.join(dir, 'report');
    const run = await compareWith(changed.base, '--report', reportDir);
    expect(run.code).toBe(1);
    const html = readFileSync(path.join(reportDir, 'report.html'), 'utf8');
    expect(html).not.toMatch(/<script|<link|src=|@import|url\(/i);
    // The XML text `&lt;Sons&gt;` shown as written: escaped once more for HTML.
    expect(html).toContain('&amp;lt;Sons&amp;gt; &quot;R&quot;');
    expect(html).not.toMatch(/<Sons>|&lt;Sons&gt;/);
    expect(html).toMatch(/<mark>[^<]*&amp;lt;Sons&amp;gt; &quot;R&quot;/);
    const json = JSON.parse(readFileSync(path.join(reportDir, 'report.json'), 'utf8'));
    expect(json.unexplained).toBeGreaterThan(0);
    expect(json.entries.find((e: { outcome: string }) => e.outcome === 'differs')).toMatchObject({
      kind: 'other_data',
    });
  });

  it('takes a primary behind a proxy that names its internal address for the address it was reached at', async () => {
    // A legacy behind a reverse proxy names itself by its own address in ?wsdl, ?disco and the help pages.
    const internal = 'http://legacy-internal.school.example:8081/Sns';
    const behindProxy = await startProxy(primary.base, (request, answer) => {
      const reached = request.headers.host;
      const text = answer.body.toString('utf8');
      if (reached === undefined || !text.includes(reached)) return answer;
      const named = text.split(`http://${reached}`).join(internal).split(reached).join(new URL(internal).host);
      return { ...answer, body: Buffer.from(named, 'utf8') };
    });
    others.push(behindProxy);
    const same = await candidate();
    const run = await runCompare(['--primary', behindProxy.base, '--candidate', same.base, '--data', data]);
    expect(run.stdout).toContain('Nothing unexplained differs.');
    expect(run.code).toBe(0);
    // What it used to report: the documents' self-address.
    const wsdl = behindProxy.seen.find((r) => r.path.endsWith('?wsdl'));
    expect(wsdl).toBeDefined();
  });

  it("accepts this service's deliberate differences by default and says how many they explained; --no-asmx-differences counts them", async () => {
    // The primary as ASMX answers: without X-Content-Type-Options (docs/asmx-differences.yaml, nosniff).
    const asAsmx = await startProxy(primary.base, (_request, answer) => {
      const headers = { ...answer.headers };
      delete headers['x-content-type-options'];
      return { ...answer, headers };
    });
    others.push(asAsmx);
    const same = await candidate();
    const byDefault = await runCompare(['--primary', asAsmx.base, '--candidate', same.base, '--data', data]);
    expect(byDefault.stdout).toContain('Nothing unexplained differs.');
    expect(byDefault.code).toBe(0);
    const explained = /^(\d+) differences explained by this service's deliberate differences from ASMX/m.exec(
      byDefault.stdout,
    );
    expect(Number(explained?.[1])).toBeGreaterThan(100);
    const without = await runCompare([
      '--primary',
      asAsmx.base,
      '--candidate',
      same.base,
      '--data',
      data,
      '--no-asmx-differences',
    ]);
    expect(without.code).toBe(1);
    expect(without.stdout).toMatch(/header x-content-type-options/);
    expect(without.stdout).not.toContain('deliberate differences from ASMX');
  });

  it('sends no write by default', async () => {
    const same = await candidate();
    const proxy = await startProxy(same.base);
    others.push(proxy);
    await compareWith(proxy.base);
    const calls = proxy.seen.map(classifyRequest).filter((c) => c.isCall);
    expect(calls.length).toBeGreaterThan(100);
    expect(calls.filter((c) => (WRITE_OPERATIONS as readonly (string | null)[]).includes(c.operation))).toEqual([]);
  });

  it('--include-writes without confirmation sends nothing at all and exits 2', async () => {
    const [p, c] = await Promise.all([startProxy(primary.base), startProxy((await candidate()).base)]);
    others.push(p, c);
    const run = await runCompare(['--primary', p.base, '--candidate', c.base, '--data', data, '--include-writes']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`will be sent to ${p.base}, ${c.base}`);
    expect(run.stderr).toContain('nothing was sent');
    expect([...p.seen, ...c.seen]).toEqual([]);
    // Asked on a terminal and refused: nothing either.
    const refused = await runCompare(['--primary', p.base, '--candidate', c.base, '--include-writes'], async () => 'n');
    expect(refused.code).toBe(2);
    expect([...p.seen, ...c.seen]).toEqual([]);
  });

  it('--include-writes --yes sends the writes', async () => {
    const c = await startProxy((await candidate()).base);
    others.push(c);
    await compareWith(c.base, '--include-writes', '--yes');
    expect(c.seen.some((r) => r.path.startsWith('/ReadNoteFromApp.asmx/UpdateNoteState'))).toBe(true);
  });

  it('counts a candidate that does not answer as errors, and exits 1', async () => {
    const gone = await candidate();
    const base = gone.base;
    await gone.close();
    others.splice(others.indexOf(gone), 1);
    const run = await compareWith(base);
    expect(run.code).toBe(1);
    expect(tableRow(run.stdout, 'GetTokenDevice', 'soap11')).toMatchObject({ sameBytes: 0, error: 11 });
    expect(run.stdout).toMatch(/error: candidate or secondary: ECONNREFUSED/);
  });

  // `--primary http://user:password@host/` once printed the password and wrote it into 0644 reports.
  it.each([
    ['--primary', (base: string) => ['--primary', base.replace('://', '://admin:s3cret-pw@'), '--candidate', base]],
    ['--candidate', (base: string) => ['--primary', base, '--candidate', base.replace('://', '://admin:s3cret-pw@')]],
    [
      '--secondary',
      (base: string) => ['--primary', base, '--secondary', base.replace('://', '://admin@'), '--candidate', base],
    ],
  ])(
    'refuses a %s URL holding a user or password, naming the way to give them, never repeating them',
    async (name, args) => {
      const proxy = await startProxy(primary.base);
      others.push(proxy);
      const run = await runCompare([...args(proxy.base), '--data', data, '--report', path.join(dir, 'never')]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`${name} must not hold a user or password`);
      expect(run.stderr).toMatch(/--(candidate-)?user NAME, the password in COMPARE_(CANDIDATE_)?PASSWORD/);
      expect(run.stdout + run.stderr).not.toMatch(/s3cret-pw|admin/);
      expect(proxy.seen).toEqual([]);
      expect(existsSync(path.join(dir, 'never'))).toBe(false);
    },
  );

  it('--user and --candidate-user send Basic credentials from COMPARE_PASSWORD and COMPARE_CANDIDATE_PASSWORD; the reports, only their owner reads, never hold them', async () => {
    const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    const guarded = (base: string, authorization: string) =>
      startProxy(base, (request, answer) =>
        request.headers.authorization === authorization
          ? answer
          : { status: 401, headers: { 'www-authenticate': 'Basic realm="legacy"' }, body: Buffer.from('Unauthorized') },
      );
    const legacy = await guarded(primary.base, basic('legacy-reader', 'legacy pässword'));
    const ours = await guarded((await candidate()).base, basic('sis-alnoor', 'candidate secret'));
    others.push(legacy, ours);
    const reportDir = path.join(dir, 'private');
    mkdirSync(reportDir);
    writeFileSync(path.join(reportDir, 'report.json'), '{}', { mode: 0o644 });
    const before = { ...process.env };
    process.env.COMPARE_PASSWORD = 'legacy pässword';
    process.env.COMPARE_CANDIDATE_PASSWORD = 'candidate secret';
    let run;
    try {
      run = await runCompare([
        '--primary',
        legacy.base,
        '--candidate',
        ours.base,
        '--data',
        data,
        '--report',
        reportDir,
        '--user',
        'legacy-reader',
        '--candidate-user',
        'sis-alnoor',
      ]);
    } finally {
      process.env = before;
    }
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(legacy.seen.length).toBeGreaterThan(100);
    for (const file of ['report.html', 'report.json']) {
      const full = path.join(reportDir, file);
      expect(statSync(full).mode & 0o777).toBe(0o600);
      expect(readFileSync(full, 'utf8')).not.toMatch(/pässword|candidate secret|authorization|Basic /i);
    }
    expect(run.stdout).not.toMatch(/pässword|candidate secret|authorization/i);
  });

  it('refuses bad arguments with exit code 2', async () => {
    expect((await runCompare(['--primary', primary.base])).code).toBe(2);
    expect((await runCompare(['--primary', 'ftp://x', '--candidate', primary.base])).code).toBe(2);
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(bad, 'rules:\n  - operation: GetTokenDevice\n');
    const run = await runCompare(['--primary', primary.base, '--candidate', primary.base, '--ignore', bad]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/a reason is required[\s\S]*accepts nothing/);
  });
});
