// The repository's own references hold: every path that README, docs/ and
// the comments of src/, test/ and scripts/ name exists, every top folder of
// src/ has its row in docs/architecture.md, and no suite hides work in a
// skipped describe (docs/testing.md#what-npm-test-checks).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

/** Files under `dir` (relative to the root) whose names end in one of `extensions`. */
function filesUnder(dir: string, extensions: readonly string[]): string[] {
  const absolute = path.join(root, dir);
  if (!existsSync(absolute)) return [];
  return readdirSync(absolute, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && extensions.some((extension) => entry.name.endsWith(extension)))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
    .filter((file) => !file.split(path.sep).some((part) => part === 'node_modules' || part.startsWith('.generated')));
}

// A path into the repository as prose and comments write it: a top folder
// that is tracked, then segments. dist/ and data/ are made at run time.
const NAMED_PATH = /(?<![\w./-])((?:src|test|scripts|docs|wsdl|deploy|\.ci)\/[\w.@-]+(?:\/[\w.@-]+)*\/?)/g;

/** The repository paths a text names, without a trailing full stop, anchor or line number. */
function namedPaths(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(NAMED_PATH)) {
    const named = match[1].replace(/[.,:;)]+$/, '');
    // A pattern (src/**/*.ts), a placeholder (test/x/NAME) or a URL path (/docs/...) is no file name.
    const after = text.slice((match.index ?? 0) + match[0].length, (match.index ?? 0) + match[0].length + 1);
    if (after === '*' || after === '{' || after === '<') continue;
    if (/[A-Z]{3,}/.test(path.basename(named)) && !/\.(md|ts|js|mjs|json|yaml|yml)$/.test(named)) continue;
    found.add(named);
  }
  return [...found];
}

/** The comments of a source file: line and block comments, not strings (good enough for our files). */
function comments(source: string): string {
  const lines: string[] = [];
  for (const match of source.matchAll(/\/\*[\s\S]*?\*\/|(?:^|[^:'"`\\])\/\/(.*)$/gm)) lines.push(match[0]);
  return lines.join('\n');
}

/** The source without its comments. */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\/|(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

describe('paths named in the repository', () => {
  it('finds paths in prose and leaves patterns alone', () => {
    expect(
      namedPaths('see src/wire/xml-text.ts, test/unit/ (all), docs/design.md#rules and src/**/*.ts or scripts/*.mjs'),
    ).toEqual(['src/wire/xml-text.ts', 'test/unit/', 'docs/design.md']);
  });

  const texts: Array<[string, string]> = [
    ...['README.md', 'CHANGELOG.md'].map((file): [string, string] => [
      file,
      readFileSync(path.join(root, file), 'utf8'),
    ]),
    ...filesUnder('docs', ['.md']).map((file): [string, string] => [file, readFileSync(path.join(root, file), 'utf8')]),
    ...['src', 'test', 'scripts']
      .flatMap((dir) => filesUnder(dir, ['.ts', '.js', '.mjs']))
      .map((file): [string, string] => [file, comments(readFileSync(path.join(root, file), 'utf8'))]),
  ];

  it('names only paths that exist', () => {
    const missing: string[] = [];
    for (const [file, text] of texts) {
      if (file === 'CHANGELOG.md') continue; // history names what was there then
      for (const named of namedPaths(text))
        // test/browser/.screenshots/, test/interop/.generated/: made by the suites, ignored by git.
        if (
          !named.split('/').some((part) => part.startsWith('.') && part !== '.ci') &&
          !existsSync(path.join(root, named.split('#')[0]))
        )
          missing.push(`${file}: ${named}`);
    }
    expect(missing).toEqual([]);
  });

  it('gives every top folder of src/ a row in docs/architecture.md', () => {
    const architecture = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');
    const folders = readdirSync(path.join(root, 'src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.filter((folder) => !architecture.includes(`src/${folder}/`))).toEqual([]);
  });
});

describe('suites that skip', () => {
  it('never use describe.skip: jest runs a skipped body all the same (describeWithPostgres, skipOrFail)', () => {
    const offenders = filesUnder('test', ['.ts'])
      .filter((file) => /\bdescribe\.skip\b/.test(withoutComments(readFileSync(path.join(root, file), 'utf8'))))
      .filter((file) => file !== path.join('test', 'unit', 'repository-paths.test.ts'));
    expect(offenders).toEqual([]);
  });

  it('read TEST_DATABASE_URL only through test/support/stores.ts', () => {
    const readers = filesUnder('test', ['.ts'])
      .filter((file) => /process\.env\.TEST_DATABASE_URL/.test(readFileSync(path.join(root, file), 'utf8')))
      .filter((file) => !file.startsWith(path.join('test', 'container')));
    expect(readers).toEqual([path.join('test', 'support', 'stores.ts')]);
  });
});
