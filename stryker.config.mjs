// Mutation testing of the slot engine (npm run mutate): StrykerJS changes src/scheduling/ one mutant at
// a time and runs the engine tests against each; a mutant no test notices "survives". Not part of CI:
// a whole run takes hours on two cores. Reports go to reports/mutation/ (HTML and JSON).
//
// TypeScript 7 has no compiler API, which Stryker's TypeScript checker needs: the checker stays off
// (tsx runs the mutated sources without type checking) and tsconfigFile names a file that does not
// exist, so Stryker does not try to rewrite the project's tsconfig.
//
// Scores (killed or timed out, of all mutants) and every survivor left, each equivalent (no observable
// change) or performance-only, and why. Shortcuts whose loss changes no answer answer to work counters
// (src/scheduling/engine-work.ts, zoneWork() in zones.ts), held by test/engine/engine-work.test.ts and
// zones.test.ts, so losing one fails a test. Runs of 2026-11-29 (MUTATE_FILE=<file>, --timeoutMS 20000
// --timeoutFactor 1, each file at the commit named), unless said otherwise:
//
//   slot-check.ts          100 of 100   (99 killed, 1 timed out)                      b721176
//   engine-work.ts           3 of 3                                                    b721176
//   round-robin.ts          34 of 34                                                   5405c89
//   availability-rules.ts    4 of 4                                                    5405c89
//   booking-window.ts       45 of 45    (3 timed out)                                  23988b1
//   recurrence.ts           51 of 51    (7 timed out)                                  23988b1
//   slot-query.ts            3 of 3                                                    23988b1
//   host-availability.ts   160 of 160   (7 timed out)                                  23988b1
//   intervals.ts           110 of 113   (3 timed out)                                  5405c89
//   booking-limits.ts      168 of 177   (6 timed out); four of its nine survivors since removed or killed (below)  2a59c24
//   working-hours.ts       125 of 129   (23 timed out); three of its four since killed or removed (below)           aab335b
//   host-runs.ts           162 of 169   (44 timed out)                                 aab335b
//   zones.ts               274 of 286   (36 timed out; one of its 13 survivors since killed by hand, below)  e64cfba
//   slots.ts               449 of 464   (32 timed out)                                 e64cfba
//
// Timeouts count as killed. Most are loops a mutant never ends (a bound or step reversed); the rest are
// shortcuts whose loss makes the large-value tests (a schedule open for 4,000 years, 50 hosts) run past the
// limit. A run that shares the machine turns slow survivors into timeouts: these runs had the machine to
// themselves except for short engine test runs at nice 19.
//
// round-robin.ts: its three equivalent survivors are gone with the code that made them: shortfalls are
// compared exactly (scaled by the total weight, integers: no zero-weight guard, no 1e-9 tolerance) and a
// host never booked sorts by the first instant a Date holds (no NaN tie).
// availability-rules.ts: isDayOff reads endMinute only (its equivalent `startMinute === 0 &&` is gone).
// host-availability.ts: none survive (the earlier run's seven equivalents went with shortcuts removed).
//
// intervals.ts, three equivalent (the same lists come out):
//   - normalizeIntervals: `end > last[1]` turned `>=`: an equal end makes a new tuple with the same values.
//   - subtractIntervals: `busy[i][0] < freeEnd` turned `<=`: a busy interval starting exactly at the free end
//     pushes the same last piece inside the loop.
//   - intersectIntervals: on equal ends `i` advances instead of `j` (`<` turned `<=`): the next pair does not
//     overlap (normalized lists have gaps), and the other pointer advances then.
//
// booking-limits.ts: the run's nine survivors. Killed since: limitHorizon's `to - 1` turned `+ 1` (a horizon
// ending at a local midnight is tested). Gone since: the two `limit !== undefined &&` tests (a missing limit is
// Infinity now) and limitHorizon's starting guess `lastDay + 1`. Checked by hand at c78312d: the new code's
// mutants (`?? Infinity` turned `&&`, `||` turned `&&`, `>=` turned `>`, `>` turned `>=`) each fail the tests.
// Five left, equivalent:
//   - tallyRuns: `i < sorted.length - 1` turned `<=`, and `count > 0` turned `true` or `>= 0`: the running
//     count is back to 0 after the last edge, and runs of count 0 never raise a maximum.
//   - busiest: `i < runs.keys.length` turned `true` or `<=`: past the end `runs.keys[i] <= last` is
//     `undefined <= last`, false, and the loop stops the same.
//
// working-hours.ts: the run's four survivors. Killed since by the work counter of local dates read (checked
// by hand at 1e4cf9a): workingPieces' `to - 1` turned `+ 1` (a date more read), and workingRunAfter's
// `dayStart === cursor &&` turned `true &&` (a run from inside a date taken as a stretch, without reading the
// date). Gone: `if (end > start)` before pushing a range (normalizeIntervals drops empty ones). One left,
// equivalent:
//   - workingRunAfter: `find((day) => day > dayNo)` turned `>=`: the stretch is taken only on a date that is
//     not an override, so the date itself never matches.
//
// host-runs.ts, seven equivalent:
//   - startsOfRuns: `<` turned `<=` between grids: starts of two grids never coincide.
//   - sweepGrid: `at < keys.length` turned `<=`, and the break after the last event turned `false` or `at - 1
//     ===`: after the last event no host is active, so the next test skips the place (and the loop stops).
//   - sweepGrid, placing a host joining: `index > 0 &&` turned `true &&` or `index >= 0`, and `> host` turned
//     `>= host`: at index 0 `active[-1] > host` is `undefined > host`, false; a host is never active twice.
//
// zones.ts, run whole at e64cfba (with slots.ts; the machine was shared with a few minutes of test runs at
// nice 10, so a timeout or two may be a slow survivor): 237 killed, 36 timed out, 13 survived;
// one killed since by hand (the test of 3cb733b: a lookup before a transition inside a span answered from the
// offset looked up last, which lastUntil's `starts[low + 1]` turned `low - 1` breaks): 274 of 286 (95.8%).
// Twelve left:
//   - probeOffsetSeconds: the U+2212 minus turned off: the ICU of Node 22 and 24 prints '-' in en-US; kept for
//     Node builds on another ICU.
//   - firstChange's second-level pass forced (`true`, `high + 1000 > low`) or `>=` (three): after the
//     quarter-hour bisection `low` and `high` are a quarter hour apart (spans start on multiples of 6 days),
//     never within a second; `high += 1000`: the second-level bisection over one second more ends on the same
//     second with as many probes.
//   - readSpan: `change === at ? seconds : probe` turned false: they differ only with two transitions between
//     two probes 3 days apart, which no zone has had since 1900 (checked with Temporal over every IANA zone;
//     the shortest stay is Freetown's 3.99 days); the same-minutes test turned `true` or read past the end
//     (two): an entry repeating its offset.
//   - offsetMinutes: the binary search from `starts.length + 1`: past the end `starts[mid] <= epochMs` is false,
//     and the search ends on the same entry.
//   - epochOfWallClock's hit test turned false, `>` or `<=` (three): its two lookups then hit offsetMinutes'
//     own cache (no search, no probe); only two calls are saved.
//
// slot-query.ts: 3 of 3 (types and two constants).
//
// slots.ts, run whole at e64cfba: 417 killed, 32 timed out, 15 survived: 449 of 464 (96.8%). Since the run
// before (c3ed6e4, 449 of 470): a round-robin host without a schedule is tested (`else if (host.fixed)`
// turned `true` dropped every slot of its group-mates), and the rolling window's count no longer de-duplicates
// dates (firstPerDate gives one slot per date), which makes the mutants that stop honouring a resume instant
// fail (they count a date twice); candidateSlots' unused default is gone. The fifteen left, equivalent:
//   - gridAt: `first >= at` turned `>`: at equality both give `first`.
//   - The plain path's free-interval loop: its end `< limit` turned `<=`, and `runFirst >= limit` turned `>`:
//     at `limit` the run is empty (its last start falls before its first), and empty runs emit nothing.
//   - The optimized path: `start >= from` turned `>` for the starts a shifted stretch takes over: a stretch is
//     shifted only when its own grid fits more than the piece's, so it never starts on the piece's grid.
//   - unionOfSorted: `i < a.length` turned `true` or `<=`, and `<=` turned `<` (three): past the end
//     `undefined <= x` is false, and equal ids are taken one after the other, then merged by the repeat test.
//   - offeredStarts (fixed hosts): `start < resume` turned `<=`: at equality `gridAt(first, step, resume)` is
//     `start` itself.
//   - `plainIds` turned false: unionOfSorted of no fixed ids and unique ids is those ids (a copy either way).
//   - `stretch--`: the marks are still distinct per stretch (and never 0, the initial).
//   - prepare: `host.groupId ?? ''` turned another string: host-availability.ts's planHost gives '' to the same
//     hosts, so their group is indexed as undefined, and `servedIn[undefined]` still counts as one group.
//   - rollingWindowEnd: `dayNo >= today` turned `true`: candidates start at today's midnight, so no earlier
//     date exists; `if (span === ROLLING_WINDOW_SEARCH_DAYS) break` turned off: the loop ends there anyway.
//   - windowBounds: `window.type === 'range'` turned false or another string (two): fixedWindowBounds never
//     answers null for a range (the test is there for the type checker), so `fixed` returns first.
//
// All of src/scheduling/: 1,688 of 1,738 (97.1%) adding each file's figure above (every file run through
// Stryker on 2026-11-29, slots.ts and zones.ts together last, and the kills checked by hand since).
import { readdirSync } from 'node:fs';

const only = process.env.MUTATE_FILE?.split(',');
const reportName = only ? only[0].replace(/^src\/scheduling\//, '').replace(/\.ts$/, '').replace(':', '-') : 'mutation';

// The engine tests in three steps, each only if the one before passed: the quick tests that read the
// whole engine (about 2 s), the rest of the quick tests (property tests of intervals, zones and working
// hours: about 8 s), then the random-query oracle (about 17 s). node:test runs every file it is given
// even after a failure, so most mutants cost only the first step. Failing properties report without
// shrinking (test/support/end-on-failure.ts).
const node = 'node --import tsx --import ./test/support/end-on-failure.ts --test --test-isolation=none --test-reporter=dot';
const firstTests = ['slot-rules', 'engine-work', 'engine-gaps', 'slot-runs', 'edge-dates', 'large-values'].map((name) => `test/engine/${name}.test.ts`);
const restTests = readdirSync('test/engine')
  .filter((file) => file.endsWith('.test.ts') && file !== 'slots-oracle.test.ts')
  .map((file) => `test/engine/${file}`)
  .filter((file) => !firstTests.includes(file));
const command = `${node} ${firstTests.join(' ')} && ${node} ${restTests.join(' ')} && ${node} test/engine/slots-oracle.test.ts`;

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: only ?? ['src/scheduling/**/*.ts', '!src/scheduling/warm-up.ts'],
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
