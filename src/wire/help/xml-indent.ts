// Lays a one-line XML document out as .NET's XmlTextWriter does with
// Formatting.Indented (the help pages' samples): the declaration on its own
// line, one element a line, two spaces a level, a leaf's text on its
// element's line. Whitespace between tags is dropped first, so an already
// indented document comes out the same; text that is only whitespace is not
// supported, and the service writes no mixed content.

export function indentXml(xml: string, newline = '\n'): string {
  let out = '';
  let depth = 0;
  // Whether the last thing written was an element's start or its text, so that its end tag stays on that line.
  let leafOpen = false;
  for (const [token] of xml.replace(/>\s+</g, '><').matchAll(/<[^>]*>|[^<]+/g)) {
    if (token.startsWith('<?')) {
      out += token;
    } else if (token.startsWith('</')) {
      depth--;
      out += leafOpen ? token : newline + '  '.repeat(depth) + token;
      leafOpen = false;
    } else if (token.startsWith('<')) {
      out += (out === '' ? '' : newline) + '  '.repeat(depth) + token;
      leafOpen = !token.endsWith('/>');
      if (leafOpen) depth++;
    } else {
      out += token;
    }
  }
  return out;
}
