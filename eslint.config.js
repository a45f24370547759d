// Lint rules carry the code-shape bar of CONTRIBUTING.md: strict types, no console outside the
// logger and the terminal driver, one process.exit (src/cli.ts), and the layout's rules below
// (which folder may import which, pure folders, the node-driver seam). What lint cannot see
// (cycles through type-only imports, file length, folder size) src/architecture.test.ts checks.
import js from '@eslint/js';
import importPlugin from 'eslint-plugin-import';
import simpleImportSort from 'eslint-plugin-simple-import-sort';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * The command folders: each imports only src/core and its own folder (docs/design.md "Shape of the
 * code").
 */
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
 * (svc gateway, docs/design.md D27) or serves the Svcfile here (svc serve), loading
 * that command lazily with the same argv and streams rather than repeating it.
 */
const commandRunsCommand = {
  up: ['./fleet/command.ts', './serve/command.ts', './gateway/command.ts'],
};

/**
 * Folders that are pure: values in, values out, the clock as an argument (docs/design.md "Shape of
 * the code").
 */
const pureFolders = ['src/core/fleet/file', 'src/core/fleet/routing', 'src/core/fleet/scheduling'];

/**
 * What a pure folder may import besides the pure folders themselves: an allow-list, so a new
 * module that reads files or calls nodes is refused until someone decides it is pure. Each is
 * values in, values out (types and schemas, error classes, name and duration helpers); the
 * snapshot module is imported for its types only.
 */
const pureImports = [
  './core/closest-name.ts',
  './core/contract',
  './core/duration.ts',
  './core/engines/keep-cache.ts',
  './core/errors.ts',
  './core/http/cors.ts',
  './core/http/gateway-error.ts',
  './core/project/diagnostics.ts',
  './core/remote/names.ts',
  './core/fleet/state/node-snapshot.ts',
];

/**
 * Packages a pure folder may use: the YAML parser (fleet-file text → values) and node:crypto for
 * its hashes alone (pureCryptoNames): a hash is a function of its input, a random byte is not.
 */
const purePackages = ['yaml', 'node:crypto'];
const pureCryptoNames = ['createHash'];

/**
 * Node kinds' drivers (docs/design.md D21): only the by-kind table builds them; everyone else sees
 * NodeDriver. Importers are whole paths, so a file of the same name elsewhere gains nothing.
 */
const driversDir = 'src/core/fleet/drivers';
const concreteDrivers = [
  { module: 'daemon-driver', importers: ['by-kind.ts', 'daemon-driver.test.ts'] },
  { module: 'remote-driver', importers: ['by-kind.ts', 'remote-driver.test.ts'] },
  { module: 'local-driver', importers: ['by-kind.ts', 'local-driver.test.ts'] },
  { module: 'gateway-local-driver', importers: ['by-kind.ts', 'gateway-local-driver.test.ts'] },
  { module: 'upstream-driver', importers: ['by-kind.ts', 'upstream-driver.test.ts'] },
  // The daemon's control-API client is the daemon driver's own half.
  { module: 'node-client', importers: ['daemon-driver.ts', 'node-client.test.ts'] },
];

/** The refusal of one concrete driver, as a no-restricted-imports pattern. */
const driverPattern = (module) => ({
  regex: `(^|/)${module}\\.ts$`,
  message: `docs/design.md D21: only ${driversDir}/by-kind.ts builds a kind's driver (${module}); use the NodeDriver interface.`,
});

/**
 * A rule's options in flat config are per file, not merged: every file but the named importers
 * gets all the refusals in one block, and each importer a block of its own refusing the rest.
 */
const importerPaths = [
  ...new Set(
    concreteDrivers.flatMap(({ importers }) => importers.map((f) => `${driversDir}/${f}`)),
  ),
];
const driverBlocks = [
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    ignores: importerPaths,
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: concreteDrivers.map(({ module }) => driverPattern(module)) },
      ],
    },
  },
  ...importerPaths.map((path) => ({
    files: [path],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: concreteDrivers
            .filter(({ importers }) => !importers.some((f) => `${driversDir}/${f}` === path))
            .map(({ module }) => driverPattern(module)),
        },
      ],
    },
  })),
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
    // Modules, not their tests: a pure folder's tests may read fixtures and docs.
    target: pureFolders.map((folder) => `./${folder}/**/!(*.test).ts`),
    from: './src',
    except: [...pureFolders.map((folder) => `./${folder.slice('src/'.length)}`), ...pureImports],
    message:
      'A pure folder imports only pure modules (eslint.config.js pureImports): take what it reads as an argument.',
  },
  {
    // The product never reaches into what measures, builds or tests it.
    target: './src/**/!(*.test).ts',
    from: ['./bench', './scripts', './test'],
    message: 'src/ imports nothing from bench/, scripts/ or test/.',
  },
  {
    target: ['./test', './scripts'],
    from: './bench',
    message: 'Nothing imports the benchmarks: share through test/support or src/core.',
  },
  {
    target: ['./test', './bench'],
    from: './scripts',
    message: 'Nothing imports a script: share through test/support or src/core.',
  },
  {
    // Scripts (build, OpenAPI, the demo) drive the product through src/core, as a command does;
    // the OpenAPI script also reads the gateway's document, built from its route table.
    target: './scripts',
    from: './src',
    except: ['./core', './gateway/openapi/gateway-openapi.ts'],
    message:
      "scripts/ imports only src/core and the gateway's OpenAPI document (and test/support): run a command, do not reach into one.",
  },
  {
    // Benchmarks drive the built svc; the modules they load in-process are the gateway's metrics
    // recorder, its body read, and its name look-up and body rewrite, whose cost per request they
    // measure alone.
    target: './bench',
    from: './src',
    except: [
      './core',
      './gateway/metrics/gateway-metrics.ts',
      './gateway/bodies/request-target.ts',
      './gateway/bodies/body-rewrite.ts',
      './gateway/names/request-names.ts',
    ],
    message:
      'bench/ imports only src/core, the gateway metrics recorder, body read, name look-up and body rewrite: measure the built svc.',
  },
];

const clockMessage = 'A pure folder takes the clock as an argument (`now`), never reads it.';
const randomMessage =
  'A pure folder is deterministic: take randomness as an argument (a seed or a chooser).';
const timerGlobals = [
  'setTimeout',
  'setInterval',
  'setImmediate',
  'queueMicrotask',
  'clearTimeout',
  'clearInterval',
  'clearImmediate',
];

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
  ...driverBlocks,
  {
    files: pureFolders.map((folder) => `${folder}/**/*.ts`),
    // Their tests may read fixtures and docs; the modules themselves may not.
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'node:crypto',
              allowImportNames: pureCryptoNames,
              message: `A pure folder uses node:crypto for ${pureCryptoNames.join(', ')} only: take randomness as an argument.`,
            },
          ],
          patterns: [
            {
              // An allow-list: relative modules (checked by the layout zone) and purePackages.
              regex: `^(?!\\.|(${purePackages.join('|')})$)`,
              message: `A pure folder does no I/O and imports no package but ${purePackages.join(', ')}: take what it reads as an argument.`,
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
        { object: 'Math', property: 'random', message: randomMessage },
        { object: 'crypto', property: 'randomUUID', message: randomMessage },
        { object: 'crypto', property: 'getRandomValues', message: randomMessage },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: clockMessage,
        },
        { selector: "CallExpression[callee.name='Date']", message: clockMessage },
        {
          // `import('node:fs')` is an import too.
          selector: 'ImportExpression',
          message: 'A pure folder loads no module at run time.',
        },
      ],
      'no-restricted-globals': [
        'error',
        // globalThis reaches every other global by another name (globalThis.Date.now()).
        { name: 'globalThis', message: 'A pure folder reads no global by another name.' },
        { name: 'global', message: 'A pure folder reads no global by another name.' },
        {
          name: 'process',
          message: 'A pure folder reads no process state: take it as an argument.',
        },
        { name: 'performance', message: clockMessage },
        { name: 'fetch', message: 'A pure folder calls nothing: its caller does.' },
        { name: 'require', message: 'A pure folder loads no module at run time.' },
        ...timerGlobals.map((name) => ({
          name,
          message: 'A pure folder schedules nothing: its caller does.',
        })),
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
