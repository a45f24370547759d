// Lint rules carry the code-shape bar of CONTRIBUTING.md: strict types, no console outside the
// logger and the terminal driver, one process.exit (src/cli.ts), and the folder boundaries below.
import js from '@eslint/js';
import importPlugin from 'eslint-plugin-import';
import simpleImportSort from 'eslint-plugin-simple-import-sort';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Folders that must not import each other (daemon, serve and gateway talk through core only). */
const commandFolders = ['daemon', 'serve', 'gateway'];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.cache/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { import: importPlugin, 'simple-import-sort': simpleImportSort },
    settings: {
      'import/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import/resolver': { node: { extensions: ['.ts', '.js', '.mjs'] } },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      curly: 'error',
      eqeqeq: 'error',
      'no-console': 'error',
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'exit', message: 'Only src/cli.ts exits the process.' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { ignoreRestSiblings: true, argsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      'import/no-cycle': 'error',
      'simple-import-sort/imports': 'error',
      'simple-import-sort/exports': 'error',
    },
  },
  {
    // The engine watchdog is a program of its own (dist/watchdog.js) and ends itself likewise.
    files: ['src/cli.ts', 'src/core/runner/watchdog.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // Fixtures stand in for engines: they are whole programs and end themselves.
    files: ['test/fixtures/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    files: ['src/core/logger.ts', 'src/core/view/terminal.ts'],
    rules: { 'no-console': 'off' },
  },
  ...commandFolders.map((folder) => ({
    files: [`src/${folder}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: commandFolders
            .filter((other) => other !== folder)
            .map((other) => ({
              group: [`**/${other}/**`],
              message: `src/${folder} must not import src/${other}; share through src/core.`,
            })),
        },
      ],
    },
  })),
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: commandFolders.map((other) => ({
            group: [`**/${other}/**`],
            message: 'src/core knows nothing about which command runs it.',
          })),
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // The fleet page's script runs in the browser as a classic script, not in Node.
    files: ['src/gateway/page/**/*.js'],
    languageOptions: { globals: { ...globals.browser }, sourceType: 'script' },
  },
);
