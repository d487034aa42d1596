// A name holding a bidirectional control (U+202E, the right-to-left override,
// among them) cannot reverse the text around it: wherever the console shows
// it as text (the title, the heading, search results) it is isolated between
// U+2068 and U+2069; inside a form field it is the value as stored, sent back
// unchanged (docs/console.md#text-direction).
import { FIXTURES } from '../support/fixtures';
import { storeVariants } from '../support/stores';
import { useConsoleWorld, signedIn } from './support';

const OVERRIDE = '\u202E';
const NAME = `Ahmad ${OVERRIDE}gnp.exe`;
const DATA = {
  ...FIXTURES,
  students: (FIXTURES.students ?? []).map((s) => (s.id === '1001' ? { ...s, fullName: NAME } : s)),
};

describe.each(storeVariants())('text direction in the console on $name', (variant) => {
  const world = useConsoleWorld(variant, { data: [DATA] });

  /** Embeddings and overrides in `page` outside every isolate (U+2066 to U+2068 ... U+2069), in text (not inside a tag). */
  const unisolated = (page: string): string[] => {
    const found: string[] = [];
    let depth = 0;
    let inTag = false;
    for (const ch of page) {
      if (ch === '<') inTag = true;
      else if (ch === '>') inTag = false;
      else if (inTag) continue;
      else if (ch >= '\u2066' && ch <= '\u2068') depth++;
      else if (ch === '\u2069') depth = Math.max(0, depth - 1);
      else if (ch >= '\u202A' && ch <= '\u202E' && depth === 0) found.push(ch);
    }
    return found;
  };

  it('isolates a name with an override wherever it is text: the title, the heading, the search results', async () => {
    const olga = await signedIn(world.harness.app, 'olga');
    const page = (await olga.agent.get('/console/students/1001')).text;
    expect(page).toContain(OVERRIDE);
    expect(/<title>([^<]*)<\/title>/.exec(page)?.[1]).toMatch(/^\u2068[^\u2069]*\u202E[^\u2069]*\u2069/);
    expect(/<h1[^>]*>([^]*?)<\/h1>/.exec(page)?.[1]).toMatch(/\u2068[^\u2069]*\u202E[^\u2069]*\u2069/);
    expect(unisolated(page)).toEqual([]);
    const search = (await olga.agent.get('/console/students?q=ahmad')).text;
    expect(search).toContain(`\u2068${NAME}\u2069`);
    expect(unisolated(search)).toEqual([]);
  });

  it('keeps the name as stored in the edit form, so that saving it changes nothing', async () => {
    const olga = await signedIn(world.harness.app, 'olga');
    const form = (await olga.agent.get('/console/students/1001/edit')).text;
    expect(form).toContain(`value="${NAME}"`);
    expect(form).not.toContain(`value="\u2068`);
  });
});
