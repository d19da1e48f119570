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
const only = process.env.MUTATE_FILE; // e.g. MUTATE_FILE=src/scheduling/round-robin.ts: one file, its own report
const reportName = only ? only.replace(/^src\/scheduling\//, '').replace(/\.ts$/, '') : 'mutation';

// The quick engine tests first, in one process (about 4 s), the random-query oracle (about 17 s) only if
// they pass: most mutants die in the first step. Failing properties report without shrinking
// (test/support/end-on-failure.ts).
const node = 'node --import tsx --import ./test/support/end-on-failure.ts --test --test-isolation=none --test-reporter=dot';
const quickTests = 'test/engine/[!s]*.test.ts test/engine/slot-*.test.ts';
const command = `${node} ${quickTests} && ${node} test/engine/slots-oracle.test.ts`;

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: only ? [only] : ['src/scheduling/**/*.ts', '!src/scheduling/warm-up.ts'],
  testRunner: 'command',
  commandRunner: { command },
  coverageAnalysis: 'off',
  checkers: [],
  tsconfigFile: 'stryker-has-no-tsconfig.json',
  concurrency: Number(process.env.MUTATE_CONCURRENCY ?? 2),
  // Generous: a run started beside other work (nice -n 19) must not be cut short and counted a kill.
  timeoutMS: 180_000,
  timeoutFactor: 2,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${reportName}.html` },
  jsonReporter: { fileName: `reports/mutation/${reportName}.json` },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
