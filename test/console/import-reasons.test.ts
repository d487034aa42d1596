// The import's refusal reasons on the console's pages (docs/console.md#import-refusals):
// every code in both languages, the Arabic page in Arabic, and a rejected
// value masked where it may be personal data.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { importFiles, type FileReport, type ImportReport } from '../../src/import';
import type { Rejection } from '../../src/import/check-sources';
import {
  fieldReason,
  maskedValue,
  REASON_CODES,
  reasonText,
  rowReason,
  type Reason,
  type ReasonCode,
  type ReasonParams,
} from '../../src/import/reasons';
import { reasonIn } from '../../src/console/import-reasons';
import { uploadPage } from '../../src/console/import-page';
import type { Upload } from '../../src/console/import-jobs';
import { viewFor } from '../../src/console/view';
import { FIXTURES } from '../support/fixtures';
import { storeVariants, type TestStore } from '../support/stores';

const session = { id: 'session', account: 'olga', role: 'operator' as const, csrf: 'token', timeZone: null };
const en = viewFor('en', session, '/console/import/x');
const ar = viewFor('ar', session, '/console/import/x');

/** Parameters every code can be said with: a field, a file, counts, a key, an English detail. */
const PARAMS: ReasonParams = {
  field: 'active',
  file: 'class-6.csv',
  collection: 'students',
  index: 3,
  count: 3,
  expected: 6,
  max: 11,
  noun: 'school',
  key: 'https://unknown.example',
  choices: ['android', 'ios'],
  refusal: 'not_https',
  detail: 'a comma or ] is expected',
  line: 7,
  missing: ['id', 'school'],
  fields: ['id', 'school', 'fullName'],
  problem: 'row-too-many-fields',
  names: ['colour', 'house'],
  more: 2,
};

const text = (markup: { toString(): string }) =>
  markup
    .toString()
    .replace(/<[^>]+>/g, '')
    .trim();
const ARABIC_LETTER = /[\u0621-\u064A]/;

describe('import refusal reasons', () => {
  it('says every code in English and in Arabic, never nothing, the Arabic in Arabic words', () => {
    for (const code of REASON_CODES) {
      const reason = { code, params: PARAMS };
      const english = text(reasonIn(en, reason));
      const arabic = text(reasonIn(ar, reason));
      expect({ code, english }).toEqual({ code, english: reasonText(reason) });
      expect(english.length).toBeGreaterThan(8);
      expect({ code, arabic: ARABIC_LETTER.test(arabic) }).toEqual({ code, arabic: true });
      expect(arabic).not.toEqual(english);
    }
  });

  it('isolates every value in a <bdi> and marks an English detail as English on the Arabic page', () => {
    const reason = { code: 'file-not-json' as const, params: PARAMS };
    const markup = reasonIn(ar, reason).toString();
    expect(markup).toContain('<bdi>class-6.csv</bdi>');
    expect(markup).toContain('<bdi dir="ltr" lang="en">a comma or ] is expected</bdi>');
    expect(reasonIn(en, rowReason('field-required', { field: 'id' })).toString()).toBe('<bdi>id</bdi> is required.');
  });

  it('chooses the Arabic plural form of a count', () => {
    const said = (max: number) => text(reasonIn(ar, rowReason('row-too-many-fields', { max })));
    expect(said(1)).toContain('حقل واحد');
    expect(said(2)).toContain('حقلان');
    expect(said(3)).toContain('3 حقول');
    expect(said(11)).toContain('11 حقلًا');
    expect(said(256)).toContain('256 حقل');
  });

  it('shows a reason kept from before the codes, or of a code it does not know, in its English words', () => {
    expect(text(reasonIn(ar, { reason: 'id is required.' }))).toBe('id is required.');
    const unknown = { code: 'no-such-code' as ReasonCode, params: {}, reason: 'something new.' };
    expect(text(reasonIn(ar, unknown))).toBe('something new.');
  });

  it('gives a store problem no code knows as field-invalid with its English kept', () => {
    const reason = fieldReason('messageOptions.note must be an object.', { messageOptions: 'x' });
    expect(reason).toMatchObject({ code: 'field-invalid', reason: 'messageOptions.note must be an object.' });
    expect(text(reasonIn(ar, reason))).toContain('must be an object.');
  });

  it('masks a value that may be personal data, and shows a code or an id as given', () => {
    expect(maskedValue('fullName', 'Huda Saleh')).toBe('H… (10)');
    expect(maskedValue('reason', '+963 912 345 678')).toBe('+*** *** *** 678');
    expect(maskedValue('token', 'fcm:AAAAAAAAAAAAAAAAAAAAAAAAAAAA')).toBe('f… (32)');
    expect(maskedValue('active', 'yes')).toBe('yes');
    expect(maskedValue('id', 'x'.repeat(100))).toBe(`${'x'.repeat(40)}…`);
    expect(maskedValue('fullName', { name: 'Huda' })).toBeNull();
  });
});

/** One upload's dry run holding `rejected` rows and files failed for `errors`. */
function uploadOf(
  rejected: readonly Rejection[],
  errors: readonly FileReport[] = [],
  noteReasons: readonly Reason[] = [],
): Upload {
  const report: ImportReport = {
    complete: false,
    refused: false,
    files: [
      {
        file: 'class-6.csv',
        status: 'checked',
        error: null,
        collections: [
          { collection: 'students', accepted: 1, inserted: null, updated: null, rejected: rejected.length },
        ],
        rejected,
        notes: noteReasons.map(reasonText),
        noteReasons,
      },
      ...errors,
    ],
  };
  const job = { kind: 'check' as const, state: 'done' as const, stage: 'checking' as const, done: 1, total: 1, report };
  return {
    id: 'a'.repeat(24),
    account: 'olga',
    fileName: 'class-6.csv',
    collection: undefined,
    uploadedAt: 0,
    check: job,
    apply: null,
  };
}

describe('the Arabic import page', () => {
  it('gives every row and file reason, and every note, in Arabic', () => {
    const rows = REASON_CODES.filter((code) => code.startsWith('row-') || code.startsWith('field-'));
    const files = REASON_CODES.filter((code) => code.startsWith('file-'));
    const notes = REASON_CODES.filter((code) => code.startsWith('note-')).map((code) => ({ code, params: PARAMS }));
    expect(rows.length + files.length + notes.length).toBe(REASON_CODES.length);
    const rejected = rows.map((code, i) => ({
      collection: 'students' as const,
      line: i + 2,
      ...rowReason(code, PARAMS),
    }));
    const failed = files.map((code): FileReport => ({
      file: 'class-6.csv',
      status: 'failed',
      error: reasonText({ code, params: PARAMS }),
      errorReason: { code, params: PARAMS },
      collections: [],
      rejected: [],
      notes: [],
    }));
    const page = uploadPage(ar, uploadOf(rejected, failed, notes));
    const markup = String(page.main);
    for (const code of REASON_CODES) {
      const arabic = reasonIn(ar, { code, params: PARAMS }).toString();
      expect({ code, shown: markup.includes(arabic) }).toEqual({ code, shown: true });
      // Not the English words, which only the downloadable reports keep.
      expect({ code, english: markup.includes(reasonText({ code, params: PARAMS })) }).toEqual({
        code,
        english: false,
      });
    }
    // The apply step is the confirmation partial: Yes posts to the upload's apply, Cancel goes back.
    expect(markup).toMatch(/<form method="post" action="\/console\/import\/a{24}\/apply">/);
    expect(markup).toContain('<a href="/console/import">');
  });
});

describe('an import job under way', () => {
  it('is a summary list of its stage and rows, above its bar, on a page that reloads itself', () => {
    const upload = uploadOf([]);
    const running = {
      ...upload,
      check: {
        kind: 'check' as const,
        state: 'running' as const,
        stage: 'checking' as const,
        done: 1500,
        total: 20000,
        report: null,
      },
    };
    const page = uploadPage(ar, running);
    expect(page.refresh).toBe(2);
    expect(String(page.main)).toMatch(
      /<dl class="summary-list">\s*<div><dt>المرحلة<\/dt><dd>جارٍ الفحص<\/dd><\/div><div><dt>الصفوف<\/dt><dd>1,500 من 20,000 صفًا<\/dd><\/div>/,
    );
    expect(String(page.main)).toContain('<progress max="20000" value="1500">');
  });
});

describe.each(storeVariants())('import refusals with personal data on $name', (variant) => {
  let ctx: TestStore;
  let dir: string;
  beforeEach(async () => {
    ctx = await variant.create();
    dir = mkdtempSync(path.join(tmpdir(), 'sns-import-reasons-'));
  });
  afterEach(async () => {
    await ctx.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('carries a rejected name only masked, in the report and on both pages', async () => {
    await ctx.store.dataSet.writeDataSet({ schools: FIXTURES.schools });
    const file = path.join(dir, 'students.csv');
    const longName = `Huda Saleh ${'al-Qasimi '.repeat(30)}`.trim();
    writeFileSync(
      file,
      `id,school,fullName,active\n7001,https://school-a.example,${longName},1\n7002,https://school-a.example,Rana,maybe\n`,
    );
    const report = await importFiles(ctx.store.dataSet, [file], { dryRun: true });
    const [only] = report.files;
    expect(only?.rejected.map((r) => [r.line, r.code, r.params.field, r.params.value])).toEqual([
      [2, 'field-too-long', 'fullName', `H… (${longName.length})`],
      [3, 'field-one-or-zero', 'active', 'maybe'],
    ]);
    expect(JSON.stringify(report)).not.toContain('Huda Saleh');
    for (const view of [en, ar]) {
      const markup = String(uploadPage(view, uploadOf(only?.rejected ?? [])).main);
      expect(markup).not.toContain('Huda');
      expect(markup).toContain(`<bdi class="code">H… (${longName.length})</bdi>`);
    }
    expect(String(uploadPage(ar, uploadOf(only?.rejected ?? [])).main)).toContain('يجب ألا يزيد');
  });
});
