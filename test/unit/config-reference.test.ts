// docs/configuration.md is generated from the settings' declarations
// (scripts/config-reference.ts, `npm run docs:config`): it must be what they
// say now, every setting must be described, and README must name none that
// the reference lacks.
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
    expect(names).toEqual(expect.arrayContaining(['PORT', 'DATABASE_URL', 'PUSH_PROVIDER', 'SMS_PROVIDER', 'FCM_CREDENTIALS', 'TWILIO_FROM']));
  });

  it('has every variable README names', () => {
    const reference = read('docs/configuration.md');
    const named = new Set([...read('README.md').matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|PORT|HOST|WORKER)(?:=[^`]*)?`/g)].map((match) => match[1]));
    expect(named.size).toBeGreaterThan(5);
    expect([...named].filter((name) => !reference.includes(`\`${name}\``))).toEqual([]);
  });

  it('links only to pages and headings that exist in docs/', () => {
    const broken: string[] = [];
    for (const [, file, fragment] of renderConfigReference().matchAll(/\]\(([a-z-]+\.md)?(?:#([^)]+))?\)/g)) {
      const target = path.join(root, 'docs', file ?? 'configuration.md');
      if (!existsSync(target)) {
        broken.push(`${file}: no such page`);
        continue;
      }
      if (fragment === undefined) continue;
      const anchors = new Set([...readFileSync(target, 'utf8').matchAll(/^#+ (.+)$/gm)].map((match) => anchor(match[1])));
      if (!anchors.has(fragment)) broken.push(`${file ?? ''}#${fragment}`);
    }
    expect(broken).toEqual([]);
  });
});
