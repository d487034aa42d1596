// XML text, XML attributes and HTML are each escaped in one place,
// src/shared/markup.ts (docs/design.md#escaping): a local escape function
// elsewhere in src/ would drift from the wire's bytes or miss a character.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const SHARED = path.join('src', 'shared', 'markup.ts');

// An entity written as a whole string: what a replace() call or an entity
// table maps a character to (`'&amp;'`, "&#39;", `&quot;`). An unescape reads
// entities from a regular expression instead, and a longer text merely
// containing one is markup, not an escape.
const ENTITY_STRING = /(['"`])&(?:amp|lt|gt|quot|apos|#0*3[49]|#x0*2[27]);\1/gi;

function escapesIn(source: string): string[] {
  return [...source.matchAll(ENTITY_STRING)].map((match) => match[0]);
}

describe('escaping', () => {
  it('finds an escape written as a replacement or an entity table', () => {
    expect(escapesIn(`s.replace(/&/g, '&amp;').replace(/"/g, "&quot;")`)).toEqual([`'&amp;'`, `"&quot;"`]);
    expect(escapesIn("const E = { '<': `&lt;`, \"'\": '&#39;', x: '&#x27;' };")).toEqual([
      '`&lt;`',
      "'&#39;'",
      "'&#x27;'",
    ]);
    expect(escapesIn(`location.replace(/&amp;/g, '&'); const page = '<p>a &amp; b</p>';`)).toEqual([]);
  });

  it('happens only in src/shared/markup.ts', () => {
    const found: string[] = [];
    for (const entry of readdirSync(path.join(root, 'src'), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
      const file = path.relative(root, path.join(entry.parentPath, entry.name));
      if (file === SHARED) continue;
      for (const escape of escapesIn(readFileSync(path.join(root, file), 'utf8'))) found.push(`${file}: ${escape}`);
    }
    expect(found).toEqual([]);
    expect(escapesIn(readFileSync(path.join(root, SHARED), 'utf8')).length).toBeGreaterThan(0);
  });
});
