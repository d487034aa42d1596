// Where a server's CPU went, from a V8 CPU profile, in µs per call
// (docs/benchmark.md#request-path):
//
//   node --cpu-prof --cpu-prof-interval=100 --cpu-prof-dir=DIR dist/main.js   (under load, then SIGTERM)
//   node -r ./test/delivery/support/register-ts.js scripts/cpu-profile-summary.ts DIR/FILE.cpuprofile CALLS [TOP]
//
// CALLS is how many calls the process answered while profiled. Samples
// under start-up (module loading, reading the WSDLs, building the service)
// and idle time are left out. Prints the time by package (the first
// node_modules package or dist/ folder on the stack: Node's own code and
// V8's are shown under the nearest of them) and the TOP functions by time
// spent in themselves.
import { readFileSync } from 'node:fs';
import type { Profiler } from 'node:inspector';

const [file, callsText, topText] = process.argv.slice(2);
if (file === undefined || !(Number(callsText) > 0)) {
  console.error(
    'usage: node -r ./test/delivery/support/register-ts.js scripts/cpu-profile-summary.ts FILE.cpuprofile CALLS [TOP]',
  );
  process.exit(2);
}
const calls = Number(callsText);
const top = Number(topText ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Required<Profiler.Profile>;

const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const nodeOf = (id: number): Profiler.ProfileNode => {
  const node = nodes.get(id);
  if (node === undefined) throw new Error(`${file}: no node ${id}`);
  return node;
};
const parents = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
const selfTime = new Map<number, number>();
for (let i = 0; i < profile.samples.length; i++)
  selfTime.set(profile.samples[i], (selfTime.get(profile.samples[i]) ?? 0) + profile.timeDeltas[i]);

const STARTUP = (frame: Profiler.ProfileNode['callFrame']): boolean =>
  frame.functionName === 'executeUserEntryPoint' ||
  frame.url.includes('/soap/lib/') ||
  frame.url.endsWith('/dist/service.js') ||
  frame.url.includes('modules/cjs/loader');
const packageOf = (url: string): string | null => {
  const module = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (module !== null) return module[1];
  const own = /\/dist\/(?:([^/]+)\/)?/.exec(url);
  return own === null ? null : `dist/${own[1] ?? ''}`;
};
const where = (frame: Profiler.ProfileNode['callFrame']): string =>
  `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*node_modules\//, '')}:${frame.lineNumber + 1}`;

const byPackage = new Map<string, number>();
const byFunction = new Map<string, number>();
const add = (map: Map<string, number>, key: string, time: number): Map<string, number> =>
  map.set(key, (map.get(key) ?? 0) + time);
let total = 0;
for (const [id, time] of selfTime) {
  const frame = nodeOf(id).callFrame;
  if (frame.functionName === '(idle)') continue;
  let owner: string | null = null;
  let startup = false;
  for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
    const ancestor = nodeOf(at).callFrame;
    if (STARTUP(ancestor)) {
      startup = true;
      break;
    }
    owner ??= packageOf(ancestor.url);
  }
  if (startup) continue;
  total += time;
  const ownPackage = packageOf(frame.url);
  const system = frame.functionName === '(garbage collector)' || frame.functionName === '(program)';
  add(byPackage, system ? frame.functionName : (ownPackage ?? `node, under ${owner ?? '(none)'}`), time);
  add(byFunction, where(frame), time);
}

const perCall = (time: number): string => (time / calls).toFixed(1).padStart(7);
const list = (map: Map<string, number>, count: number): string =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, time]) => `${perCall(time)}  ${name}`)
    .join('\n');
console.log(`${perCall(total)}  µs per call in all, start-up and idle left out\n`);
console.log(`by package:\n${list(byPackage, 20)}\n`);
console.log(`by function (self time):\n${list(byFunction, top)}`);
