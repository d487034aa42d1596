// Lint rules: typescript-eslint's type-aware recommendations for the TypeScript
// sources and tests, ESLint's own for the scripts; formatting is Prettier's
// (eslint-config-prettier turns off the rules it would fight with).
import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// The layers of src/ (docs/design.md#layers): what each folder (or file at the
// top of src/) may import from the rest of src/, besides itself. null: the
// top, which puts the rest together and may import anything.
const BOTTOM = ['domain', 'contract', 'shared', 'log', 'log-destination', 'config-values', 'trace'];
const MAY_IMPORT = {
  domain: [],
  // The WSDL the service serves is written with shared/'s XML escaping.
  contract: ['shared'],
  shared: [],
  'log-destination': [],
  'config-values': [],
  log: ['log-destination'],
  trace: ['log', 'shared'],
  lifecycle: BOTTOM,
  store: BOTTOM,
  operations: [...BOTTOM, 'store'],
  access: [...BOTTOM, 'store'],
  delivery: [...BOTTOM, 'store'],
  import: [...BOTTOM, 'store'],
  // The legacy kit (docs/migration.md, docs/design.md#layers): what moving
  // from the legacy service takes, one folder whose sub-folders are layers of
  // their own. Comparing answers reads only the contract, so that `npm run
  // compare` and the shadow calls share one comparison without reaching the
  // store or the wire; the seeding writes through the importer; the shadow
  // calls and the request recording watch live calls.
  'legacy-kit/compare': BOTTOM,
  'legacy-kit/seed': [...BOTTOM, 'store', 'import'],
  'legacy-kit/shadow': [...BOTTOM, 'metrics', 'wire', 'observe', 'legacy-kit/compare'],
  wire: [...BOTTOM, 'operations', 'access'],
  admin: [...BOTTOM, 'store', 'wire'],
  health: [...BOTTOM, 'store', 'wire'],
  metrics: [...BOTTOM, 'store', 'access', 'delivery', 'wire'],
  // The answer an observer captures has the comparison's shape.
  observe: [...BOTTOM, 'metrics', 'wire', 'legacy-kit/compare'],
  console: [...BOTTOM, 'store', 'access', 'wire', 'admin', 'import'],
  server: [...BOTTOM, 'operations', 'access', 'wire', 'observe', 'metrics'],
  config: null,
  service: null,
  cli: null,
  main: null,
};

// Folders whose sub-folders are layers of their own (their lines above are
// `folder/sub-folder`); nothing sits at their top but those sub-folders.
const SPLIT = ['legacy-kit'];

// One `files` block per part and depth, since the rule sees only the import's
// text: from src/store/outbox/claims.ts, `../../delivery` is src/delivery
// while `../records` is src/store/records, and from
// src/legacy-kit/shadow/shadow.ts, `../seed` is src/legacy-kit/seed. A part of
// src/ without a line above stops the lint.
function layerRules() {
  const src = join(import.meta.dirname, 'src');
  const entries = (folder) =>
    readdirSync(join(src, folder), { withFileTypes: true }).filter(
      (entry) => entry.isDirectory() || entry.name.endsWith('.ts'),
    );
  const parts = entries('').flatMap((entry) => {
    const name = entry.name.replace(/\.ts$/, '');
    if (!SPLIT.includes(name)) return [{ name, folder: entry.isDirectory() }];
    return entries(name).map((sub) => ({
      name: `${name}/${sub.name.replace(/\.ts$/, '')}`,
      folder: sub.isDirectory(),
    }));
  });
  const missing = parts
    .filter((part) => !part.folder && part.name.includes('/'))
    .concat(parts.filter((part) => !Object.hasOwn(MAY_IMPORT, part.name)))
    .map((part) => `src/${part.name}`);
  if (missing.length > 0)
    throw new Error(`eslint.config.mjs: no layer for ${missing.join(', ')} (docs/design.md#layers)`);
  const files = readdirSync(src, { withFileTypes: true, recursive: true }).filter(
    (entry) => entry.isFile() && entry.name.endsWith('.ts'),
  );
  const deepest = Math.max(...files.map((entry) => relative(src, entry.parentPath).split(sep).length));
  return parts
    .filter((part) => MAY_IMPORT[part.name] !== null)
    .flatMap((part) => {
      const allowed = MAY_IMPORT[part.name];
      const forbidden = Object.keys(MAY_IMPORT).filter((name) => name !== part.name && !allowed.includes(name));
      const message = `src/${part.name} may import only ${allowed.length === 0 ? 'nothing else of src/' : allowed.join(', ')} (docs/design.md#layers).`;
      const segments = part.name.split('/');
      const depths = part.folder
        ? Array.from({ length: deepest - segments.length + 1 }, (_, i) => i + segments.length)
        : [0];
      return depths.map((depth) => {
        // An import climbing `up` folders from this depth lands in src/ followed
        // by the first `depth - up` folders of this part's path.
        const climbs = part.folder ? Array.from({ length: segments.length }, (_, i) => depth - i) : [0];
        const patterns = climbs.flatMap((up) => {
          const prefix = segments.slice(0, depth - up).join('/');
          const reached = forbidden
            .filter((name) => prefix === '' || name.startsWith(`${prefix}/`))
            .map((name) => (prefix === '' ? name : name.slice(prefix.length + 1)));
          if (reached.length === 0) return [];
          return [{ regex: `^${up === 0 ? '\\./' : '\\.\\./'.repeat(up)}(?:${reached.join('|')})(?:/|$)`, message }];
        });
        return {
          files: [part.folder ? `src/${part.name}/${'*/'.repeat(depth - segments.length)}*.ts` : `src/${part.name}.ts`],
          rules: { 'no-restricted-imports': ['error', { patterns }] },
        };
      });
    });
}

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', '.bench/', 'data/', 'test/interop/.generated/', 'test/browser/.screenshots/'] },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A leading underscore marks a parameter or a destructured field left out on purpose.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // A timer a callback clears before the line that sets it stays a `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Values read from rows and results are scalars narrowed from unknown to {}, which the rule takes for objects.
      '@typescript-eslint/no-base-to-string': 'off',
    },
  },
  ...layerRules(),
  {
    // Tests read JSON bodies and node-soap results, which are `any` by nature; the assertions type them.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Fakes implement async interfaces without awaiting; jest's expect() takes methods unbound.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [js.configs.recommended],
    languageOptions: { globals: { ...globals.node } },
  },
  prettier,
);
