// A school's event subscription in export and import
// (src/store/data-set/event-subscriptions.ts): it travels as the school's
// eventsUrl, never with its secret; an import keeps a stored secret, makes a
// new one for a new subscription (never printed), and '' removes it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { exportDataSet, formatImportReport, importFiles } from '../../src/import';
import { isEventSecret } from '../../src/shared/event-signature';
import { storeVariants, type TestStore } from '../support/stores';

const HILLTOP = 'https://hilltop.school.example';
const RIVER = 'https://river.school.example';
const KNOWN_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

// A school's clock and message options as an export writes them when none was set (docs/delivery.md#quiet-hours).
const CLOCK_UNSET = { timeZone: 'UTC', quietHours: null, pushOptions: null, fcmProject: null };

describe.each(storeVariants())('event subscriptions in export and import on $name', (variant) => {
  let ctx: TestStore;
  let dir: string;
  beforeEach(async () => {
    ctx = await variant.create();
    dir = mkdtempSync(path.join(os.tmpdir(), 'sns-events-import-'));
    await ctx.store.dataSet.writeDataSet({
      schools: [
        { baseUrl: HILLTOP, name: 'Hilltop' },
        { baseUrl: RIVER, name: 'River' },
      ],
    });
  });
  afterEach(async () => {
    await ctx.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  const file = (name: string, text: string): string => {
    const full = path.join(dir, name);
    writeFileSync(full, text);
    return full;
  };
  const stored = () =>
    ctx.query<{ school_key: string; url: string; secret: string; state: string }>(
      'select school_key, url, secret, state from event_subscriptions order by school_key',
    );

  it('exports the URL without the secret, in JSON and CSV', async () => {
    await ctx.store.admin.putEventSubscription(HILLTOP, {
      url: 'https://hooks.hilltop.example/in',
      secret: KNOWN_SECRET,
    });
    const json = await exportDataSet(ctx.store.dataSet, path.join(dir, 'json'), 'json');
    const text = readFileSync(json.files[0], 'utf8');
    expect(text).not.toContain('whsec_');
    expect(text).not.toContain(KNOWN_SECRET.slice(6, 30));
    expect(JSON.parse(text).schools).toEqual([
      { ...CLOCK_UNSET, baseUrl: HILLTOP, name: 'Hilltop', eventsUrl: 'https://hooks.hilltop.example/in' },
      { ...CLOCK_UNSET, baseUrl: RIVER, name: 'River' },
    ]);
    const csv = await exportDataSet(ctx.store.dataSet, path.join(dir, 'csv'), 'csv');
    const schools = readFileSync(csv.files.find((f) => f.endsWith('schools.csv')) as string, 'utf8');
    expect(schools).not.toContain('whsec_');
    expect(parse(schools)).toEqual([
      ['baseUrl', 'name', 'timeZone', 'quietHours', 'pushOptions', 'fcmProject', 'eventsUrl'],
      [HILLTOP, 'Hilltop', 'UTC', '', '', '', 'https://hooks.hilltop.example/in'],
      [RIVER, 'River', 'UTC', '', '', '', ''],
    ]);
  });

  it('keeps a stored secret, makes one for a new subscription, and removes one given as empty', async () => {
    await ctx.store.admin.putEventSubscription(HILLTOP, {
      url: 'https://hooks.hilltop.example/old',
      secret: KNOWN_SECRET,
    });
    const report = await importFiles(ctx.store.dataSet, [
      file(
        'schools.csv',
        `baseUrl,name,eventsUrl\n${HILLTOP},Hilltop,https://hooks.hilltop.example/new\n${RIVER},River,https://hooks.river.example/\n`,
      ),
    ]);
    expect(report.complete).toBe(true);
    const rows = await stored();
    expect(rows.map((r) => [r.url, r.state])).toEqual([
      ['https://hooks.hilltop.example/new', 'active'],
      ['https://hooks.river.example/', 'active'],
    ]);
    expect(rows[0]?.secret).toBe(KNOWN_SECRET);
    const made = rows[1]?.secret;
    expect(isEventSecret(made)).toBe(true);
    // The made secret is in no report: it is set again through the admin API or the console when the school's system needs it.
    expect(formatImportReport(report)).not.toContain(made);
    expect(JSON.stringify(report)).not.toContain('whsec_');

    // Left out keeps the subscription; an empty cell removes it.
    await importFiles(ctx.store.dataSet, [file('keep.csv', `baseUrl,name\n${HILLTOP},Hilltop Academy\n`)]);
    expect((await stored()).length).toBe(2);
    await importFiles(ctx.store.dataSet, [
      file('drop.json', JSON.stringify({ schools: [{ baseUrl: RIVER, name: 'River', eventsUrl: '' }] })),
    ]);
    expect((await stored()).map((r) => r.url)).toEqual(['https://hooks.hilltop.example/new']);
    expect(await ctx.store.admin.getEventSubscription(RIVER)).toBe('none');
  });

  it('round-trips: an export imported into an empty store brings the subscription back with a new secret', async () => {
    await ctx.store.admin.putEventSubscription(RIVER, { url: 'https://hooks.river.example/in', secret: KNOWN_SECRET });
    const { files } = await exportDataSet(ctx.store.dataSet, path.join(dir, 'out'), 'json');
    const other = await variant.create();
    try {
      const report = await importFiles(other.store.dataSet, files);
      expect(report.complete).toBe(true);
      const view = await other.store.admin.getEventSubscription(RIVER);
      expect(view).toMatchObject({ url: 'https://hooks.river.example/in', state: 'active', pending: 0 });
      const [row] = await other.query<{ secret: string }>('select secret from event_subscriptions');
      expect(row?.secret).not.toBe(KNOWN_SECRET);
      expect(isEventSecret(row?.secret ?? '')).toBe(true);
    } finally {
      await other.cleanup();
    }
  });

  it('refuses the row of a receiver URL the rule refuses, by line, and writes the rest', async () => {
    const report = await importFiles(ctx.store.dataSet, [
      file(
        'schools.csv',
        `baseUrl,name,eventsUrl\n${HILLTOP},Hilltop,http://hooks.hilltop.example/\n${RIVER},River,https://user:pw@hooks.river.example/\nhttps://new.school.example,New,https://hooks.new.example/\n`,
      ),
    ]);
    expect(report.complete).toBe(false);
    expect(report.files[0]?.rejected).toEqual([
      {
        collection: 'schools',
        line: 2,
        reason: 'eventsUrl must be https:// (http:// only with EVENTS_ALLOW_HTTP=true).',
        code: 'field-url',
        params: { field: 'eventsUrl', refusal: 'not_https', value: 'h… (29)' },
      },
      {
        collection: 'schools',
        line: 3,
        reason: 'eventsUrl must not carry a user name or password.',
        code: 'field-url',
        params: { field: 'eventsUrl', refusal: 'credentials', value: 'h… (36)' },
      },
    ]);
    // The refused reason never echoes the credential.
    expect(JSON.stringify(report)).not.toContain('pw@');
    expect((await stored()).map((r) => r.url)).toEqual(['https://hooks.new.example/']);

    // EVENTS_ALLOW_HTTP lets an http:// receiver in.
    const allowed = await importFiles(
      ctx.store.dataSet,
      [file('http.csv', `baseUrl,name,eventsUrl\n${HILLTOP},Hilltop,http://hooks.hilltop.example/\n`)],
      { eventsAllowHttp: true },
    );
    expect(allowed.complete).toBe(true);
    expect(await ctx.store.admin.getEventSubscription(HILLTOP)).toMatchObject({ url: 'http://hooks.hilltop.example/' });
  });
});
