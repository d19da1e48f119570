// Mutation testing of the slot engine (npm run mutate): StrykerJS changes src/scheduling/ one mutant at
// a time and runs the engine tests against each; a mutant no test notices "survives". Not part of CI:
// a whole run takes hours on two cores. Reports go to reports/mutation/ (HTML and JSON).
//
// TypeScript 7 has no compiler API, which Stryker's TypeScript checker needs: the checker stays off
// (tsx runs the mutated sources without type checking) and tsconfigFile names a file that does not
// exist, so Stryker does not try to rewrite the project's tsconfig.
//
// Survivors left, each judged equivalent (no observable change) or performance-only:
// (listed by `npm run mutate` in reports/mutation/mutation.json; see the README's "Tests" section)
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: ['src/scheduling/**/*.ts', '!src/scheduling/warm-up.ts'],
  testRunner: 'command',
  commandRunner: { command: 'node --import tsx --test --test-reporter=dot test/engine/*.test.ts' },
  coverageAnalysis: 'off',
  checkers: [],
  tsconfigFile: 'stryker-has-no-tsconfig.json',
  concurrency: 2,
  timeoutMS: 60_000,
  timeoutFactor: 2,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
