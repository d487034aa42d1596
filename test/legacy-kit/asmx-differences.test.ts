// docs/asmx-differences.yaml, the deliberate differences from ASMX as an
// ignore file: it reads, and each rule names a place of docs/design.md that exists.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readIgnoreFile } from '../../src/legacy-kit/compare';

const ROOT = path.resolve(__dirname, '../..');

/** The anchors of a Markdown page: explicit `<a id>`s and GitHub's heading slugs. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const match of markdown.matchAll(/<a id="([^"]+)"><\/a>/g)) anchors.add(match[1]);
  for (const match of markdown.matchAll(/^#{1,6} (.+)$/gm))
    anchors.add(
      match[1]
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    );
  return anchors;
}

describe('docs/asmx-differences.yaml', () => {
  const rules = readIgnoreFile(path.join(ROOT, 'docs/asmx-differences.yaml'));
  const anchors = anchorsOf(readFileSync(path.join(ROOT, 'docs/design.md'), 'utf8'));

  it('reads as an ignore file, every rule with a reason', () => {
    expect(rules.length).toBeGreaterThanOrEqual(5);
    for (const rule of rules) expect(rule.reason.length).toBeGreaterThan(20);
  });

  it.each(rules.map((rule) => [rule.id, rule.anchor]))(
    '%s names an anchor of docs/design.md that exists',
    (_id, anchor) => {
      expect(anchor).toMatch(/^design\.md#/);
      expect([...anchors]).toContain(anchor?.slice('design.md#'.length));
    },
  );

  it('names every place where docs/design.md says the service differs from ASMX on purpose', () => {
    const named = new Set(rules.map((rule) => rule.anchor?.slice('design.md#'.length)));
    for (const anchor of ['rule-14', 'rule-23', 'rule-24', 'operation-failures', 'json-bodies', 'nosniff'])
      expect([...named]).toContain(anchor);
  });
});
