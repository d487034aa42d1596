// `as unknown as` tells the compiler to stop checking a value's type
// altogether. src/ keeps at most five, each where the compiler cannot know
// what the code knows, and says why in a `//` comment on the lines right above
// (docs/design.md#storage names the two of the store).
import { srcFiles } from '../support/src-files';

const LIMIT = 5;

interface DoubleCast {
  readonly file: string;
  readonly line: number;
  /** The comment lines right above the statement the cast is in. */
  readonly reason: string;
}

/** Every `as unknown as` of a source text, with the `//` comment right above its statement. */
function doubleCasts(file: string, source: string): DoubleCast[] {
  const lines = source.split('\n');
  const found: DoubleCast[] = [];
  lines.forEach((text, index) => {
    for (let at = text.indexOf('as unknown as'); at !== -1; at = text.indexOf('as unknown as', at + 1)) {
      // A statement may begin a few lines up (a call's arguments on lines of their own).
      let start = index;
      while (start > 0 && index - start < 6 && !/[;{}]\s*$|^\s*\/\//.test(lines[start - 1] ?? '')) start -= 1;
      const comment: string[] = [];
      for (let above = start - 1; above >= 0 && /^\s*\/\//.test(lines[above] ?? ''); above -= 1)
        comment.unshift((lines[above] ?? '').trim().replace(/^\/\/\s?/, ''));
      found.push({ file, line: index + 1, reason: comment.join(' ') });
    }
  });
  return found;
}

describe('double casts in src/', () => {
  const casts = srcFiles().flatMap(([file, source]) => doubleCasts(file, source));

  it(`keeps at most ${LIMIT}`, () => {
    expect(casts.length).toBeLessThanOrEqual(LIMIT);
  });

  it('says above each why the compiler cannot know', () => {
    const unexplained = casts.filter((cast) => cast.reason.length < 40).map((cast) => `${cast.file}:${cast.line}`);
    expect(unexplained).toEqual([]);
  });

  it('finds a cast, and the comment above its statement', () => {
    const source = [
      'const a = 1;',
      '// The library types it as a string.',
      'const b = f(',
      '  x as unknown as number,',
      ');',
      'const c = y as unknown as string;',
    ].join('\n');
    expect(doubleCasts('x.ts', source)).toEqual([
      { file: 'x.ts', line: 4, reason: 'The library types it as a string.' },
      { file: 'x.ts', line: 6, reason: '' },
    ]);
  });
});
