// Lint rules carry the code-shape bar of CONTRIBUTING.md: strict types, no console outside the
// logger and the terminal driver, one process.exit (src/cli.ts), and the layout's rules below
// (which folder may import which, pure folders, the node-driver seam). What lint cannot see
// (cycles through type-only imports, file length) src/architecture.test.ts checks.
import js from '@eslint/js';
import importPlugin from 'eslint-plugin-import';
import simpleImportSort from 'eslint-plugin-simple-import-sort';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** The command folders: each imports only src/core and its own folder (GUIDE "Shape of the code"). */
const commandFolders = [
  'daemon',
  'serve',
  'gateway',
  'fleet',
  'code',
  'up',
  'remote',
  'alias',
  'import',
];

/**
 * Where one command runs another: the only imports across command folders, each named. `svc up`
 * starts a fleet file's nodes (svc fleet start), runs the gateway for a fleet with local nodes
 * (svc gateway, GUIDE D27) or serves the Svcfile here (svc serve), loading
 * that command lazily with the same argv and streams rather than repeating it.
 */
const commandRunsCommand = {
  up: ['./fleet/command.ts', './serve/command.ts', './gateway/command.ts'],
};

/** Folders that are pure: values in, values out, the clock as an argument (GUIDE "Shape of the code"). */
const pureFolders = ['src/core/fleet/file', 'src/core/fleet/routing', 'src/core/fleet/scheduling'];

/** Node kinds' drivers (GUIDE D21): only the by-kind table builds them; everyone else sees NodeDriver. */
const concreteDrivers = [
  { module: 'daemon-driver', importers: ['by-kind', 'daemon-driver.test'] },
  { module: 'remote-driver', importers: ['by-kind', 'remote-driver.test'] },
  { module: 'local-driver', importers: ['by-kind', 'local-driver.test'] },
  { module: 'gateway-local-driver', importers: ['by-kind', 'gateway-local-driver.test'] },
  // The daemon's control-API client is the daemon driver's own half.
  { module: 'node-client', importers: ['daemon-driver', 'node-client.test'] },
];

const layoutZones = [
  ...commandFolders.map((folder) => ({
    target: `./src/${folder}`,
    from: './src',
    except: ['./core', `./${folder}`, ...(commandRunsCommand[folder] ?? [])],
    message: `src/${folder} imports only src/core and its own folder: share through src/core.`,
  })),
  {
    target: './src/core',
    from: './src',
    except: ['./core'],
    message: 'src/core knows nothing about which command runs it.',
  },
  {
    target: ['./src/!(cli).ts', './src/*/**/*.ts', './test/**/*.ts'],
    from: './src/commands.ts',
    message:
      'Only src/cli.ts reads the command table; a command module imports src/core/command.ts.',
  },
  ...concreteDrivers.map(({ module, importers }) => ({
    target: ['./src/**/*.ts', './test/**/*.ts'].map((glob) =>
      glob.replace('*.ts', `!(${importers.join('|')}).ts`),
    ),
    from: `./src/core/fleet/drivers/${module}.ts`,
    message:
      "GUIDE D21: only the by-kind table (core/fleet/drivers/by-kind.ts) builds a kind's driver; use the NodeDriver interface.",
  })),
  {
    // The relay streams bytes between a client and an engine: it knows the wire contract and HTTP,
    // and nothing of fleets, routing or commands. core/duration.ts is a pure formatter its 504
    // message shares with --reply-timeout's parser.
    target: './src/gateway/relay',
    from: './src',
    except: ['./gateway/relay', './core/contract', './core/http', './core/duration.ts'],
    message: 'The relay imports only src/core/contract and src/core/http (and its own folder).',
  },
  {
    target: pureFolders.map((folder) => `./${folder}`),
    from: ['./src/core/fleet/load', './src/core/fleet/drivers'],
    message: 'A pure folder reaches no module that reads files or calls nodes.',
  },
];

/** Modules that do I/O, refused in pure folders (their `node:` and bare forms, and subpaths). */
const ioModules = ['fs', 'net', 'child_process', 'http', 'https', 'tls', 'dgram', 'undici'];

const clockMessage = 'A pure folder takes the clock as an argument (`now`), never reads it.';

const processExit = {
  object: 'process',
  property: 'exit',
  message: 'Only src/cli.ts exits the process.',
};

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
      'no-restricted-properties': ['error', processExit],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { ignoreRestSiblings: true, argsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      'import/no-cycle': 'error',
      'import/no-restricted-paths': [
        'error',
        { basePath: import.meta.dirname, zones: layoutZones },
      ],
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
  {
    files: pureFolders.map((folder) => `${folder}/**/*.ts`),
    // Their tests may read fixtures and docs; the modules themselves may not.
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ioModules.flatMap((name) =>
            [name, `node:${name}`].map((path) => ({
              name: path,
              message: `A pure folder does no I/O (${path}): take what it reads as an argument.`,
            })),
          ),
          patterns: [
            {
              group: ioModules.flatMap((name) => [`${name}/*`, `node:${name}/*`]),
              message: 'A pure folder does no I/O: take what it reads as an argument.',
            },
          ],
        },
      ],
      'no-restricted-properties': [
        'error',
        processExit,
        { object: 'Date', property: 'now', message: clockMessage },
        { object: 'performance', property: 'now', message: clockMessage },
        { object: 'process', property: 'hrtime', message: clockMessage },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: clockMessage,
        },
        { selector: "CallExpression[callee.name='Date']", message: clockMessage },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'performance', message: clockMessage },
        { name: 'setTimeout', message: 'A pure folder schedules nothing: its caller does.' },
        { name: 'setInterval', message: 'A pure folder schedules nothing: its caller does.' },
      ],
    },
  },
  {
    files: ['src/gateway/relay/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!node:|\\.)',
              message:
                'The relay imports no package: Node built-ins, core/contract and core/http only.',
            },
          ],
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
