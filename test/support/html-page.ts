// Reads a help page. The pages are written as well-formed XML (quoted
// attributes, closed void elements), so an XML parser reads them whole; a
// page that does not parse, for instance because a value broke out of its
// escaping, fails the test that reads it.
import { SaxesParser, type SaxesTag } from 'saxes';

export interface PageElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: readonly (PageElement | string)[];
}

export function parsePage(markup: string): PageElement {
  const parser = new SaxesParser();
  const stack: { name: string; attributes: Record<string, string>; children: (PageElement | string)[] }[] = [];
  let root: PageElement | null = null;
  parser.on('opentag', (tag: SaxesTag) => {
    const element = { name: tag.name, attributes: { ...(tag.attributes as Record<string, string>) }, children: [] };
    if (stack.length > 0) stack[stack.length - 1].children.push(element);
    else root = element;
    stack.push(element);
  });
  parser.on('text', (text: string) => {
    if (stack.length > 0) stack[stack.length - 1].children.push(text);
  });
  parser.on('closetag', () => stack.pop());
  parser.write(markup).close();
  if (root === null) throw new Error('the page has no root element');
  return root;
}

/** Every element below (and including) `from` that matches, in document order. */
export function findAll(from: PageElement, match: (element: PageElement) => boolean): PageElement[] {
  const found: PageElement[] = [];
  const visit = (element: PageElement) => {
    if (match(element)) found.push(element);
    for (const child of element.children) if (typeof child !== 'string') visit(child);
  };
  visit(from);
  return found;
}

export const byName =
  (...names: string[]) =>
  (element: PageElement): boolean =>
    names.includes(element.name);

export function findOne(from: PageElement, match: (element: PageElement) => boolean): PageElement {
  const [first] = findAll(from, match);
  if (first === undefined) throw new Error('no such element on the page');
  return first;
}

export function textOf(element: PageElement): string {
  return element.children.map((child) => (typeof child === 'string' ? child : textOf(child))).join('');
}
