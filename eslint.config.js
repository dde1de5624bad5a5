// @ts-check
// ESLint holds the conventions of the shared style guide (docs/linting.md maps each rule to the
// habit it keeps). src/ and test/ are linted with type information (the project service reads
// tsconfig.json); bench/, scripts/, bin/ and the .mjs test helpers are plain JavaScript outside
// tsconfig.json and get the syntax-only rules.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

const TYPE_AWARE = ['src/**/*.ts', 'test/**/*.ts', 'vitest.config.ts'];
const PLAIN_JS = ['**/*.js', '**/*.mjs'];

/** `process` members only the CLI may use: the library never prints, exits or reads the environment. */
const PROCESS_OUTSIDE_CLI = [
  ['env', 'the library reads no environment variable: take it as an option and let src/cli/ pass it'],
  ['exit', 'the library never exits: return a result (or throw a TmsyncError) and let src/cli/ map it to an exit code'],
  ['exitCode', 'the library never sets the exit code: src/cli/ maps results to exit codes'],
  ['stdout', 'the library never prints: return a result or call a progress hook'],
  ['stderr', 'the library never prints: return a result or call a progress hook'],
  ['argv', 'the library takes options, not the command line'],
  ['cwd', 'the library takes the root or cwd as an option'],
].map(([property, message]) => ({ object: 'process', property, message }));
/** The same members imported by name: `import { env } from 'node:process'`. */
const PROCESS_IMPORTS_OUTSIDE_CLI = ['node:process', 'process'].map((name) => ({
  name,
  importNames: PROCESS_OUTSIDE_CLI.map((p) => p.property),
  message: 'the library never prints, exits or reads the environment: src/cli/ does, and passes options',
}));

/** Modules with effects that plan/ (pure: desired × actual × base → Plan) must not import. */
const IO_MODULES = ['fs', 'fs/promises', 'child_process', 'os', 'net', 'http', 'https', 'worker_threads', 'dgram', 'readline', 'process'];
const PLAN_FORBIDDEN_PATHS = IO_MODULES.flatMap((m) => [`node:${m}`, m]).map((name) => ({
  name,
  message: 'plan/ is pure: no disk, network, process or clock. Fetch or read in the caller and pass the data in.',
}));
const LAYERS_ABOVE_PLAN = ['apply', 'backup', 'cli', 'emulator', 'migrate', 'pull', 'remote', 'repository', 'results', 'runs'];

export default defineConfig(
  { ignores: ['dist/', 'coverage/', 'bench-out/', '.tmsync/', 'tmp/', 'schemas/', 'examples/'] },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,

  // ---- TypeScript with type information: src/ and test/
  ...tseslint.configs.recommendedTypeChecked.map((c) => ({ ...c, files: TYPE_AWARE })),
  {
    files: TYPE_AWARE,
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // habit 15: every switch over a kind is exhaustive; a `default: assertNever(x)` counts as
      // handling the rest, a switch over a non-union (string, number) needs no default.
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: false, allowDefaultCaseForExhaustiveSwitch: true },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      // small conventions: `import type` for what is only a type, on its own line
      // `typeof import('…')` stays allowed: it types a module that is loaded lazily
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'separate-type-imports', disallowTypeAnnotations: false }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // a list of values read so far and reads still pending, kept in one array for their order
      '@typescript-eslint/await-thenable': ['error', { allowMixedPromiseArrays: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          // `const { secret: _secret, ...rest } = o` drops a key on purpose
          ignoreRestSiblings: true,
        },
      ],
      // the code rejects with whatever a callback or an abort signal handed it (already an Error
      // or the signal's reason); wrapping it would change what callers see
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true, allowThrowingAny: true }],
      // JSON and XML scalars are stringified after null and undefined are ruled out, leaving the
      // type `{}`, which the rule cannot tell from an object
      '@typescript-eslint/no-base-to-string': 'off',
      // an async function that awaits nothing still turns a throw into a rejection, which fastify
      // hooks and the async interfaces it implements rely on
      '@typescript-eslint/require-await': 'off',
    },
  },

  // ---- every file
  {
    rules: {
      eqeqeq: ['error', 'always'],
      'no-console': 'error',
      'no-var': 'error',
      'prefer-const': 'error',
    },
  },

  // ---- the library (src/ outside src/cli/): never prints, exits or reads the environment
  {
    files: ['src/**/*.ts'],
    ignores: ['src/cli/**'],
    rules: {
      'no-restricted-properties': ['error', ...PROCESS_OUTSIDE_CLI],
      'no-restricted-imports': ['error', { paths: PROCESS_IMPORTS_OUTSIDE_CLI }],
    },
  },

  // ---- src/cli/: the only place that prints; it calls one use-case function per command (habit 13)
  { files: ['src/cli/**/*.ts'], rules: { 'no-console': 'off' } },
  {
    files: ['src/cli/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          // `p.catch(() => undefined);` leaves a promise in flight with its rejection swallowed
          // until someone awaits it: a pipeline, which belongs in a library use-case function
          selector: "ExpressionStatement > CallExpression[callee.type='MemberExpression'][callee.property.name='catch']",
          message: 'a command keeps no promise in flight: run the pipeline in a library use-case function and await its result',
        },
      ],
    },
  },

  // ---- habit 12, item 8 of issue 25: functions fit on a few screens
  {
    files: ['src/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 120, skipBlankLines: true, skipComments: true }] },
  },
  // commander's declarations are one long chain by design: one `.command()` block per command
  { files: ['src/cli/program.ts'], rules: { 'max-lines-per-function': 'off' } },

  // ---- habit 1: plan/ is pure all the way down (the direct imports; an architecture test checks
  // the whole import graph)
  {
    files: ['src/plan/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: PLAN_FORBIDDEN_PATHS,
          patterns: [
            {
              group: LAYERS_ABOVE_PLAN.map((d) => `../${d}/*`),
              message: 'plan/ is pure and below these layers: it may import base/, the tables and the model, not the modules that do I/O.',
            },
          ],
        },
      ],
    },
  },
  // base/ sits below plan/: no upward arrow
  {
    files: ['src/base/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: PROCESS_IMPORTS_OUTSIDE_CLI,
          patterns: [{ group: ['../plan/*'], message: 'base/ is below plan/: move the shared type down (to base/ or model.ts) instead.' }],
        },
      ],
    },
  },

  // ---- tests
  {
    files: ['test/**/*.ts'],
    rules: {
      // tests read the emulator's and the CLI's JSON answers as untyped data on purpose: the wire
      // format is what they check, and typing every body would restate the zod schemas of src/api/
      // (about 1,500 sites). `any` stays out of src/, where it is an error.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      // messages of failed assertions interpolate whatever the untyped answer held
      '@typescript-eslint/restrict-template-expressions': 'off',
      // `expect(obj.method).toHaveBeenCalled()` and spies pass methods around unbound by design
      '@typescript-eslint/unbound-method': 'off',
      // servers in tests answer from async 'end' listeners; a rejection there fails the test run
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      // a test may say why it skips; it prints nothing else
      'no-console': ['error', { allow: ['warn'] }],
    },
  },

  // ---- plain JavaScript: scripts, benches, the bin shim (espree, no type information: the
  // type-aware rules above are set for TYPE_AWARE files only)
  {
    files: PLAIN_JS,
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', performance: 'readonly', fetch: 'readonly', AbortController: 'readonly', structuredClone: 'readonly', setImmediate: 'readonly', queueMicrotask: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly' },
    },
  },
  {
    files: PLAIN_JS,
    rules: {
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  // scripts and benches report to the terminal
  { files: ['scripts/**', 'bench/**', 'bin/**'], rules: { 'no-console': 'off' } },
);
