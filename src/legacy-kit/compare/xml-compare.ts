// Two XML documents compared as XML rather than as bytes: element names by
// namespace and local name (the prefixes a writer chose do not count),
// attributes in any order (namespace declarations are not attributes), and
// whitespace-only text between elements ignored. Parsed with saxes, strict,
// no DTD (a DOCTYPE makes the document unreadable here). The first
// difference is named by an XPath-like path of local names and positions
// (`/Envelope/Body/GetStudentSchoolResponse/GetStudentSchoolResult/StudentInfo[2]/fullName`),
// which carries no value, so it may be logged.
import { SaxesParser } from 'saxes';

export interface XmlElement {
  readonly uri: string;
  readonly local: string;
  /** `{uri}local` → value, namespace declarations left out. */
  readonly attributes: ReadonlyMap<string, string>;
  readonly children: readonly (XmlElement | string)[];
}

/** Deepest nesting and most elements read: the answers compared are small, a huge one is refused, not read. */
const MAX_DEPTH = 64;
const MAX_ELEMENTS = 200_000;

/** The document's root element, or null when the text is not well-formed XML (or has a DOCTYPE). */
export function parseXml(text: string): XmlElement | null {
  const parser = new SaxesParser({ xmlns: true });
  const stack: { element: XmlElement; children: (XmlElement | string)[] }[] = [];
  let root: XmlElement | null = null;
  let failed = false;
  let count = 0;
  const addText = (value: string) => {
    const top = stack[stack.length - 1];
    if (top === undefined) return;
    const last = top.children[top.children.length - 1];
    if (typeof last === 'string') top.children[top.children.length - 1] = last + value;
    else top.children.push(value);
  };
  parser.on('doctype', () => {
    failed = true;
  });
  parser.on('opentag', (tag) => {
    count++;
    if (stack.length >= MAX_DEPTH || count > MAX_ELEMENTS) {
      failed = true;
      return;
    }
    const attributes = new Map<string, string>();
    for (const attribute of Object.values(tag.attributes)) {
      if (attribute.prefix === 'xmlns' || (attribute.prefix === '' && attribute.local === 'xmlns')) continue;
      attributes.set(`{${attribute.uri}}${attribute.local}`, attribute.value);
    }
    const children: (XmlElement | string)[] = [];
    const element: XmlElement = { uri: tag.uri, local: tag.local, attributes, children };
    const parent = stack[stack.length - 1];
    if (parent === undefined) root = element;
    else parent.children.push(element);
    stack.push({ element, children });
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('error', () => {
    failed = true;
  });
  try {
    parser.write(text).close();
  } catch {
    return null;
  }
  return failed ? null : root;
}

/** Where two documents first differ, and how; no values, so it may be logged. */
export interface XmlDifference {
  readonly path: string;
  readonly what: 'name' | 'namespace' | 'attribute' | 'text' | 'children';
}

/** The first difference between two parsed documents, or null when they are equal as XML. */
export function firstXmlDifference(a: XmlElement, b: XmlElement): XmlDifference | null {
  return compareElements(a, b, `/${a.local}`);
}

function compareElements(a: XmlElement, b: XmlElement, path: string): XmlDifference | null {
  if (a.local !== b.local) return { path, what: 'name' };
  if (a.uri !== b.uri) return { path, what: 'namespace' };
  const names = new Set([...a.attributes.keys(), ...b.attributes.keys()]);
  for (const name of [...names].sort()) {
    if (a.attributes.get(name) !== b.attributes.get(name))
      return { path: `${path}/@${name.replace(/^\{\}/, '')}`, what: 'attribute' };
  }
  const left = significant(a.children);
  const right = significant(b.children);
  const positions = positionsOf(left);
  const length = Math.min(left.length, right.length);
  for (let i = 0; i < length; i++) {
    const x = left[i];
    const y = right[i];
    if (typeof x === 'string' || typeof y === 'string') {
      if (x !== y) return { path: `${path}/text()`, what: typeof x === typeof y ? 'text' : 'children' };
      continue;
    }
    const difference = compareElements(x, y, `${path}/${positions[i]}`);
    if (difference !== null) return difference;
  }
  if (left.length === right.length) return null;
  const extra = left.length > right.length ? left[length] : right[length];
  const at = typeof extra === 'string' ? 'text()' : left.length > right.length ? positions[length] : extra.local;
  return { path: `${path}/${at}`, what: 'children' };
}

/** Text that is only whitespace between elements does not count; text that is the whole content does. */
function significant(children: readonly (XmlElement | string)[]): (XmlElement | string)[] {
  const hasElements = children.some((child) => typeof child !== 'string');
  return hasElements ? children.filter((child) => typeof child !== 'string' || child.trim() !== '') : [...children];
}

/** Each element child's step: its local name, with its position among same-named siblings when there are several. */
function positionsOf(children: readonly (XmlElement | string)[]): string[] {
  const totals = new Map<string, number>();
  for (const child of children)
    if (typeof child !== 'string') totals.set(child.local, (totals.get(child.local) ?? 0) + 1);
  const seen = new Map<string, number>();
  return children.map((child) => {
    if (typeof child === 'string') return 'text()';
    const n = (seen.get(child.local) ?? 0) + 1;
    seen.set(child.local, n);
    return (totals.get(child.local) ?? 0) > 1 ? `${child.local}[${n}]` : child.local;
  });
}

/** Every text leaf of a document with its path, for telling missing data from other answers. */
export function textLeaves(
  root: XmlElement,
): { readonly path: string; readonly local: string; readonly text: string }[] {
  const leaves: { path: string; local: string; text: string }[] = [];
  const walk = (element: XmlElement, path: string) => {
    const children = significant(element.children);
    const positions = positionsOf(children);
    if (children.length === 1 && typeof children[0] === 'string') {
      leaves.push({ path, local: element.local, text: children[0] });
      return;
    }
    children.forEach((child, i) => {
      if (typeof child !== 'string') walk(child, `${path}/${positions[i]}`);
    });
  };
  walk(root, `/${root.local}`);
  return leaves;
}

/** Whether an element anywhere in the document has this local name. */
export function hasElement(root: XmlElement, local: string): boolean {
  if (root.local === local) return true;
  return root.children.some((child) => typeof child !== 'string' && hasElement(child, local));
}
