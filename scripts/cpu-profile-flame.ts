// A flame graph (SVG) of a V8 CPU profile, start-up and idle left out as in
// scripts/cpu-profile-summary.ts: each box a function in its caller's
// stack, as wide as its share of the CPU time; frames under 0.2 % of it are
// dropped to keep the picture small.
//
//   node -r ./test/delivery/support/register-ts.js scripts/cpu-profile-flame.ts FILE.cpuprofile OUT.svg [TITLE]
import { readFileSync, writeFileSync } from 'node:fs';
import type { Profiler } from 'node:inspector';

const [file, out, title = file] = process.argv.slice(2);
if (file === undefined || out === undefined) {
  console.error(
    'usage: node -r ./test/delivery/support/register-ts.js scripts/cpu-profile-flame.ts FILE.cpuprofile OUT.svg [TITLE]',
  );
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Required<Profiler.Profile>;
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const selfTime = new Map<number, number>();
for (let i = 0; i < profile.samples.length; i++)
  selfTime.set(profile.samples[i], (selfTime.get(profile.samples[i]) ?? 0) + profile.timeDeltas[i]);

const STARTUP = (frame: Profiler.ProfileNode['callFrame']): boolean =>
  frame.functionName === 'executeUserEntryPoint' ||
  frame.functionName === '(idle)' ||
  frame.url.includes('/soap/lib/') ||
  frame.url.endsWith('/dist/service.js') ||
  frame.url.includes('modules/cjs/loader');
const label = (frame: Profiler.ProfileNode['callFrame']): string => {
  const file = frame.url.replace(/^.*node_modules\//, '').replace(/^.*\/dist\//, 'dist/');
  return `${frame.functionName || '(anonymous)'}${file === '' ? '' : ` ${file}:${frame.lineNumber + 1}`}`;
};

interface Tree {
  readonly name: string;
  total: number;
  readonly children: Map<string, Tree>;
}

/** The tree's time, start-up and idle subtrees left out; children merged by label. */
function build(id: number): Tree | null {
  const node = nodes.get(id);
  if (node === undefined || STARTUP(node.callFrame)) return null;
  const children = new Map<string, Tree>();
  let total = selfTime.get(id) ?? 0;
  for (const childId of node.children ?? []) {
    const child = build(childId);
    if (child === null) continue;
    total += child.total;
    const same = children.get(child.name);
    if (same === undefined) children.set(child.name, child);
    else mergeInto(same, child);
  }
  return { name: label(node.callFrame), total, children };
}
function mergeInto(into: Tree, from: Tree): void {
  into.total += from.total;
  for (const [name, child] of from.children) {
    const same = into.children.get(name);
    if (same === undefined) into.children.set(name, child);
    else mergeInto(same, child);
  }
}

const root = build(profile.nodes[0].id);
if (root === null) {
  console.error(`${file}: the profile holds nothing but start-up and idle time`);
  process.exit(1);
}
const WIDTH = 1200;
const ROW = 16;
const total = root.total;
const minTime = total * 0.002;
const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const boxes: Array<{ node: Tree; x: number; width: number; depth: number }> = [];
let depthMax = 0;
function place(node: Tree, x: number, depth: number): void {
  depthMax = Math.max(depthMax, depth);
  const width = (node.total / total) * WIDTH;
  boxes.push({ node, x, width, depth });
  let at = x;
  for (const child of [...node.children.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    if (child.total >= minTime) place(child, at, depth + 1);
    at += (child.total / total) * WIDTH;
  }
}
place(root, 0, 0);
const height = (depthMax + 1) * ROW + 30;
const svg = [
  `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" font-family="monospace" font-size="11">`,
  `<text x="4" y="16" font-size="13">${escape(title)}</text>`,
];
for (const { node, x, width, depth } of boxes) {
  const y = height - (depth + 1) * ROW;
  const share = ((100 * node.total) / total).toFixed(1);
  // Warm colours by a hash of the name, so that one function keeps its colour in both pictures.
  let hash = 0;
  for (const c of node.name) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
  const fill = `hsl(${20 + (hash % 40)}, 80%, ${55 + (hash % 20)}%)`;
  const text = width > 40 ? escape(node.name.slice(0, Math.floor(width / 6.6))) : '';
  svg.push(
    `<g><title>${escape(node.name)} (${share} %)</title><rect x="${x.toFixed(1)}" y="${y}" width="${Math.max(0.5, width - 0.5).toFixed(1)}" height="${ROW - 1}" fill="${fill}"/>` +
      (text === '' ? '' : `<text x="${(x + 3).toFixed(1)}" y="${y + 11}">${text}</text>`) +
      '</g>',
  );
}
svg.push('</svg>');
writeFileSync(out, `${svg.join('\n')}\n`);
