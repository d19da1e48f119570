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
//   zones.ts               267 of 287 by the last run and hand kills; 5 more killed and 2 removed since (below)
//   slots.ts               449 of 470   (34 timed out; 21 survived: see the note below)        c3ed6e4
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
// zones.ts: second run (after the first work counters) 266 of 287 with hand kills 267; killed since (checked by
// hand at a6c1c5b): the four utcTime shortcut mutants (dates of years 0-99 answer to zoneWork()), offsetMinutes'
// hit test `>=` turned `>` and lastUntil's `low + 1` turned `- 1` (the offset cache is held to answer at a
// transition's own instant and in a span's last entry); gone: lastZone's two initial strings (it starts as
// null): 272 of 285 (95.4%). That run shared the machine with engine test runs, so a few of its 35 timeouts
// may be slow survivors. Thirteen left:
//   - probeOffsetSeconds: the bare "GMT" answer and the U+2212 minus (two): the ICU of Node 22 and 24 prints
//     GMT+00:00 for UTC and '-' in en-US; kept for Node builds on another ICU.
//   - firstChange's second-level pass forced or `>=` (two): after the quarter-hour bisection `low` and `high`
//     are a quarter hour apart (spans start on multiples of 6 days), never within a second; `high += 1000`:
//     the second-level bisection over one second more ends on the same second with as many probes.
//   - readSpan: `change === at ? seconds : probe` turned either way (two: they differ only with two
//     transitions between two probes 3 days apart, which no zone has had since 1900: checked with Temporal
//     over every IANA zone; the shortest stay is Freetown's 3.99 days); the same-minutes test turned `true` or
//     read past the end (two): an entry repeating its offset.
//   - offsetMinutes: the binary search from `starts.length + 1`: past the end `starts[mid] <= epochMs` is false,
//     and the search ends on the same entry.
//   - epochOfWallClock's hit test turned false, `>` or `<=` (three): its two lookups then hit offsetMinutes'
//     own cache (no search, no probe); only two calls are saved.
//
// slot-query.ts: 3 of 3 (types and two constants).
//
// slots.ts, lines 17-60 (gridAt and the plain path of runsOfHostSet; MUTATE_FILE=src/scheduling/slots.ts:17-60):
// 77 killed, 4 timed out, 16 survived (83.5%). Killed since (engineWork intersections, seatChecks,
// startChecks, freeScans): every plan intersected (the first with itself), every plan taken as seated
// (`filter` dropped, `true`, `>= 0`), the no-seats branch turned off (`if (false)`, its block emptied), and the
// skip over free intervals too short for the piece (`while (false)`, `+ duration`, `Math.min`): 90 of 96 by
// hand (93.8%; the other shared-free-time survivor, a one-plan shortcut, was on a line that is gone). The six
// left are equivalent:
//   - gridAt: `first >= at` turned `>`: at equality both give `first`.
//   - The free-interval loop's end (`<= limit`, `true`): intervals past the piece emit nothing (`runFirst >=
//     limit`).
//   - `resume` not advanced (`Math.max` turned `Math.min`, twice) or not checked (`start >= resume` turned
//     `true`): only `firstPerDate` returns a resume instant, and its one caller (the rolling window) counts
//     dates, each once.
//
// slots.ts, lines 61-110 (the showOptimizedSlots path and unionOfSorted): 94 killed, 15 timed out, 10 survived
// (91.6%). Two were real: unionOfSorted keeping a user listed both as a fixed and a round-robin host twice in
// a slot's hostIds (`if (true)`, `length + 1`); tested now: 111 of 119 (93.3%). The eight left:
//   - fitsAll's one-plan shortcut turned off: `every` over one plan.
//   - `start >= from` turned `>` for the starts a shifted stretch takes over: a stretch is shifted only when
//     its own grid fits more than the piece's, so it never starts on the piece's grid.
//   - The emit loop's `resume` (`if (false)`, `<=`, `&& resume`): as above, only the rolling window's count of
//     dates returns one.
//   - unionOfSorted's `i < a.length` turned `true` or `<=`, and `<=` turned `<`: past the end `undefined <= x`
//     is false, and equal ids are taken one after the other, then merged by the repeat test.
//
// slots.ts, lines 111-175 (offeredStarts: fixed hosts, round-robin runs and groups): 80 killed, 13 timed out, 9
// survived in its run. Three of the timeouts survive when run alone on a quiet machine (the run shared it with
// other tests), so 90 of 102 in truth. Four were real, each killed by an engine test now (applied by hand): an
// event type without hosts (`if (fixed.length === 0) return` turned off throws on no plans), a user in two
// round-robin groups named twice in a slot (`plainIds` true with repeated ids, twice), and the round-robin
// path's rolling-window count dropping a date whose only slot starts at local midnight (`start >= resume`
// turned `>`). 94 of 102 (92.2%). The eight left then (three killed since, noted below):
//   - `fixed.length === 0 ? [host] : [host, ...fixed]` turned the second always: with no fixed host the same list.
//   - `plainIds` turned false: unionOfSorted of no fixed ids and unique ids is those ids (a copy either way).
//   - `stretch--`: the marks are still distinct per stretch (and never 0, the initial). (The groups check for
//     one group, `groupIndex.size > 1` turned `true` or `>= 1`, is killed since: engineWork groupChecks.)
//   - `if (start >= resume)` turned `true` (round robin) and `take(...) ?? resume` turned `&& resume` (fixed
//     hosts): only firstPerDate returns a resume instant, and the rolling window's count takes each date once.
//   (Killed since, engineWork groupChecks: "every group must be served" turned off, which checked every
//   stretch of a team with a group without hours.) 97 of 102 by hand (95.1%).
//
// slots.ts, lines 176-240 (prepare, candidateSlots, seatsOf): 56 killed, 5 timed out, 3 survived in its run. One
// timeout survives alone (below); the other four each fail the engine tests alone too (two run past 300 s,
// one runs out of memory): 60 of 64 (93.8%). The four left:
//   - `from >= spanEnd` turned `>` or the return dropped: an empty span offers no start.
//   - firstPerDate's resume at the next date turned the previous date: nothing is skipped, and the rolling
//     window's count takes each date once.
//   - `host.groupId ?? ''` turned another string in prepare: host-availability.ts's planHost gives '' to the
//     same hosts, so their group is indexed as undefined, and `servedIn[undefined]` still counts as one group.
//
// slots.ts, lines 241-306 (rollingWindowEnd, windowBounds, computeSlots): 96 killed, 4 timed out, 19 survived
// (84.0%). Seven were real, each killed by an engine test now (applied by hand): the rolling window giving up
// after its short search (`if (span === ROLLING_WINDOW_SEARCH_DAYS) break` turned `true` or `!==`: dates with
// slots 20 days apart), and the guard for an empty or inverted range or a length of 0 or less (five: dropped,
// `&&`, its length half dropped or turned `< 0`, a made-up slot returned). 107 of 119 (89.9%). The twelve
// left then (three killed since, noted below):
//   - counted: `dayNo >= today` turned `true`: candidates start at today's midnight, so no earlier date exists.
//   - The short search's firstPerDate turned false: it lists every slot, and the dates counted are the same.
//     (Killed since, engineWork windowSearchDays: the short search's length, `days * 2 + 7` turned `/ 2 + 7`
//     or `- 7`, and `dates.length >= days` turned `>`: 110 of 119 by hand, 92.4%.)
//   - `if (span === ROLLING_WINDOW_SEARCH_DAYS) break` turned `false`: the loop ends there anyway.
//   - windowBounds: `window.type === 'range'` turned false or another string: fixedWindowBounds never answers
//     null for a range (the test is there for the type checker), so `fixed` returns first.
//   - computeSlots: `query.to <= query.from` turned `<` or dropped: an empty or inverted range keeps no slot
//     in the final cut; `query.to - 1` turned `+ 1`: a day more is computed, then cut; the cut's shortcut
//     (`first === 0 && end === slots.length`) turned false: a copy of the same list.
// Lines 1-16 are imports, a constant and a type: no mutants.
//
// slots.ts, run whole at c3ed6e4: 449 of 470 (95.5%). Its 21 survivors are those of the line-range runs below
// not killed since (the free-interval loop's end, the shifted stretches' `start >= from` and loop end, the
// resume tests, unionOfSorted's bounds, plainIds, stretch--, the groupId string, the rolling window's count
// and its short search, windowBounds' range test) plus four to review: `else if (host.fixed) return null`
// turned `true` (a round-robin host without a plan), candidateSlots' `firstPerDate = false` default turned
// `true`, and the rolling count's repeat test (`dates[dates.length - 1] !== dayNo` turned `true`, `+ 1`).
// The line-range notes below are from the earlier runs; the next session checks the four and rewrites them.
//
// All of src/scheduling/: 1,686 of 1,743 (96.7%) adding each file's figure above (zones.ts by its run and the
// kills checked by hand since; every other file run through Stryker on 2026-11-29).
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
