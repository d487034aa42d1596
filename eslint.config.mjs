// Lint rules: typescript-eslint's type-aware recommendations for the TypeScript
// sources and tests, ESLint's own for the scripts; formatting is Prettier's
// (eslint-config-prettier turns off the rules it would fight with).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', '.bench/', 'data/', 'test/interop/.generated/', 'test/browser/.screenshots/'] },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A leading underscore marks a parameter or a destructured field left out on purpose.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // A timer a callback clears before the line that sets it stays a `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Values read from rows and results are scalars narrowed from unknown to {}, which the rule takes for objects.
      '@typescript-eslint/no-base-to-string': 'off',
    },
  },
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
