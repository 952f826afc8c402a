import next from 'eslint-config-next/core-web-vitals';
import nextTs from 'eslint-config-next/typescript';
import tseslint from 'typescript-eslint';

const config = [
  ...next,
  ...nextTs,
  {
    ignores: [
      '.next/**',
      '.next-*/**',
      'node_modules/**',
      '.data/**',
      'db/migrations/**',
      'next-env.d.ts',
      'test-results/**',
      'playwright-report/**',
    ],
  },
  // Prettier formats to 140 columns but leaves long strings and comments alone; this catches them.
  { rules: { 'max-len': ['error', { code: 140, ignoreUrls: true }] } },
  // Rules that need the types (the project's tsconfig, through typescript-eslint's project service):
  // a promise nobody awaits loses its rejection, and a switch over a union misses the member added later.
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parser: tseslint.parser, parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // JSX event handlers may be async (React ignores what they return); anywhere else a promise passed where a
      // void callback is expected is a rejection nobody sees.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
    },
  },
];

export default config;
