// The list writer's UTF-8 (src/wire/results/utf8-chunks.ts) gives the bytes
// Buffer.from gives of escapeText's text: every code unit, alone and beside
// others, surrogate pairs and lone halves, across chunk boundaries.
import { escapeText } from '../../src/shared/markup';
import { Utf8Chunks, utf8Bytes } from '../../src/wire/results/utf8-chunks';

const written = (write: (out: Utf8Chunks) => void): Buffer => {
  const out = new Utf8Chunks();
  write(out);
  return Buffer.concat(out.end());
};

describe('Utf8Chunks', () => {
  it('escapes and encodes every code unit as escapeText and Buffer.from do', () => {
    const mismatches: number[] = [];
    for (let unit = 0; unit < 0x10000; unit++) {
      const text = `a${String.fromCharCode(unit)}b`;
      const expected = Buffer.from(escapeText(text), 'utf8');
      if (!written((out) => out.text(text)).equals(expected)) mismatches.push(unit);
    }
    expect(mismatches).toEqual([]);
  });

  it('writes markup as it is, and pairs, lone halves and mixed text as Buffer.from does', () => {
    const texts = [
      '',
      'plain',
      'O\'Neil & <Sons> "quoted"',
      'طالب رقم ١٢',
      'emoji \u{1F600} and \u{10FFFF}',
      'lone high \ud800 then text',
      'lone low \udc00',
      'ends high \ud83d',
      'reversed \udc00\ud800',
      'nul \u0000 bell \u0007 tab \t cr \r nonchar \ufffe \uffff',
    ];
    for (const text of texts) {
      expect(written((out) => out.text(text))).toEqual(Buffer.from(escapeText(text), 'utf8'));
      expect(written((out) => out.markup(text))).toEqual(Buffer.from(text, 'utf8'));
    }
  });

  it('cuts chunks of about 32 KB and keeps every byte across them, a value longer than a chunk included', () => {
    const tag = utf8Bytes('<x>');
    const name = 'طالب & <ابن> \u{1F600} ';
    const long = 'ب'.repeat(40_000);
    const out = new Utf8Chunks();
    let expected = '';
    for (let i = 0; i < 3000; i++) {
      out.bytes(tag);
      out.text(name + i);
      expected += `<x>${escapeText(name + i)}`;
    }
    out.text(long);
    out.markup('</end>');
    expected += `${long}</end>`;
    const chunks = out.end();
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks.slice(0, -2)) expect(chunk.length).toBeLessThanOrEqual(32 * 1024);
    expect(Buffer.concat(chunks).toString('utf8')).toBe(expected);
  });
});
