// docs/configuration.md is generated from the settings' declarations
// (scripts/config-reference.ts, `npm run docs:config`): it must be what they
// say now, every setting must be described, README must name none that the
// reference lacks, and neither may link to a heading that is not there.
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { anchor, renderConfigReference, settingEntries } from '../../scripts/config-reference';

const root = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

describe('docs/configuration.md', () => {
  it('is what `npm run docs:config` writes from the declarations today', () => {
    expect(read('docs/configuration.md')).toBe(renderConfigReference());
  });

  it('describes every setting the configuration reads, each once', () => {
    const names = settingEntries().map((entry) => entry.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(
      expect.arrayContaining([
        'PORT',
        'DATABASE_URL',
        'PUSH_PROVIDER',
        'SMS_PROVIDER',
        'FCM_CREDENTIALS',
        'TWILIO_FROM',
      ]),
    );
  });

  it('has every variable README names', () => {
    const reference = read('docs/configuration.md');
    const named = new Set(
      [...read('README.md').matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|PORT|HOST|WORKER)(?:=[^`]*)?`/g)].map(
        (match) => match[1],
      ),
    );
    expect(named.size).toBeGreaterThan(5);
    expect([...named].filter((name) => !reference.includes(`\`${name}\``))).toEqual([]);
  });

  it('links, as README does, only to pages and headings that exist', () => {
    expect(brokenLinks(renderConfigReference(), 'docs/configuration.md')).toEqual([]);
    expect(brokenLinks(read('README.md'), 'README.md')).toEqual([]);
  });
});

/** The relative links of `text` (the page `file`) whose page or heading does not exist. */
function brokenLinks(text: string, file: string): string[] {
  const broken: string[] = [];
  for (const [, target, fragment] of text.matchAll(/\]\(([^)#\s:]*)(?:#([^)\s]+))?\)/g)) {
    const page = target === '' ? file : path.join(path.dirname(file), target);
    if (!existsSync(path.join(root, page))) {
      broken.push(`${target}: no such page`);
      continue;
    }
    if (fragment === undefined) continue;
    const headings = page === file ? text : read(page);
    const anchors = new Set([...headings.matchAll(/^#+ (.+)$/gm)].map((match) => anchor(match[1])));
    if (!anchors.has(fragment)) broken.push(`${target}#${fragment}`);
  }
  return broken;
}
