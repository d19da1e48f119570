// Mutation testing of the slot engine (npm run mutate): StrykerJS changes src/scheduling/ one mutant at
// a time and runs the engine tests against each; a mutant no test notices "survives". Not part of CI:
// a whole run takes hours on two cores. Reports go to reports/mutation/ (HTML and JSON).
//
// TypeScript 7 has no compiler API, which Stryker's TypeScript checker needs: the checker stays off
// (tsx runs the mutated sources without type checking) and tsconfigFile names a file that does not
// exist, so Stryker does not try to rewrite the project's tsconfig.
//
// Survivors left, each judged equivalent (no observable change) or performance-only. Files run so far
// (MUTATE_FILE=<file> npx stryker run; timeouts count as killed). Performance-only survivors are being
// turned into kills: the shortcuts they break now answer to work counters (src/scheduling/engine-work.ts,
// like zones.ts's zoneWork()), held by test/engine/engine-work.test.ts; those marked "killed since" below
// were applied by hand and each fails that file, but their files have not been run through Stryker again.
//
// round-robin.ts: 39 killed, 3 survived (92.9%), all equivalent:
//   - `totalWeight === 0 ? 0 : ...` turned `false ? ...`: with no weight every shortfall is NaN, and a NaN
//     difference fails `Math.abs(...) > 1e-9`, so the comparison falls through to the next rule as the
//     guard makes it.
//   - `> 1e-9` turned `>= 1e-9`: shortfalls are sums of multiples of weight shares; none differs by
//     exactly 1e-9.
//   - `if (lastA !== lastB) return lastA - lastB` turned `if (true)`: equal instants subtract to 0 (two
//     hosts never booked give -Infinity - -Infinity = NaN, which sort treats as 0): the same tie.
//
// booking-limits.ts: 177 killed, 5 timed out, 20 survived (90.1%). Eight survived on two lines that
// repeated what the next two lines decide (a count limit below 1, a candidate longer than the duration
// limit); the lines are gone. The other twelve are equivalent or performance-only:
//   - tallyRuns: `i < sorted.length - 1` turned `<=`, and `count > 0` turned `true` or `>= 0`: the running
//     count is back to 0 after the last edge, and runs of count 0 never raise a maximum.
//   - busiest: `i < runs.keys.length` turned `true` or `<=`: past the end `runs.keys[i] <= last` is
//     `undefined <= last`, false, and the loop stops the same.
//   - bookingLimitChecker: `active` turned every period, its filter `true`, or `if (active.length === 0)
//     return null` turned `if (false)`: a period with no limit never refuses; only the work differs.
//
// availability-rules.ts: 7 killed, 1 survived (87.5%), equivalent:
//   - isDayOff: `startMinute === 0 && endMinute === 0` turned `true && endMinute === 0`: an override ends
//     at 0 only when it is a day off (endMinute is 1-1440 otherwise; schedule input refuses the rest).
//
// booking-window.ts: 42 killed, 3 timed out, none survived (100%; one survivor of the first run, a window
// whose last day is the last day number, now tested).
//
// recurrence.ts: 44 killed, 7 timed out, none survived (100%). The first run (52 of 58) found the loop's
// cap of 12 x count + 12 steps changing nothing a test saw; it was a bug (it cut short series whose dates are
// mostly skipped) and is gone; the boundary guards of the last day and year are tested.
//
// slot-check.ts: 92 killed, none survived (100%; the first run's ten survivors each have a test now).
//
// intervals.ts: 95 killed, 6 timed out, 13 survived in its run (88.6%). Two were real: intersectIntervals
// pushing empty or inverted pieces for lists that touch or do not meet (`end > start` turned `true` or `>=`);
// the engine tests now require normalized answers, and each of the two, applied by hand, fails them (a second
// run stopped at 25 of 114 with none surviving, to free the machine): 103 of 114 (90.4%). Killed since
// (engineWork sorts and busyVisits): the already-sorted fast path turned off (`sorted = false` at the start
// or in its loop, `<=` turned `<`) and the subtraction's skip pointer not advanced (`while (false) b++`,
// `<= cursor` turned `<`): 108 of 114 by hand (94.7%). The six left are equivalent (the same lists come out):
//   - normalizeIntervals: the sort's tie-break on equal starts (`a[1] - b[1]` turned `a[1] + b[1]`): merging
//     gives the same union in any order; `end > last[1]` turned `>=`: an equal end makes a new tuple with the
//     same values.
//   - subtractIntervals: the early exit (`if (cursor >= freeEnd) break` turned `if (false)` or `>`): the next
//     busy interval starts after the cursor, which has passed the free end, so the loop's own test stops it
//     before anything is visited; `busy[i][0] < freeEnd` turned `<=`: a busy interval starting exactly at the
//     free end pushes the same last piece inside the loop.
//   - intersectIntervals: on equal ends `i` advances instead of `j` (`<` turned `<=`): the next pair does not
//     overlap (normalized lists have gaps), and the other pointer advances then.
//
// host-availability.ts: 149 killed, 3 timed out, 10 survived in its run (93.8%). Three were real, each now
// tested (applied by hand, each fails the engine tests): seatLeft counting a seated booking that only ends with
// the candidate as a seat to join; calendar busy time taken for a seat when it names the event type; a query
// without an event type joining a booking without one. 155 of 162 (95.7%). The other seven are equivalent:
//   - planHost: `occupancies.length === 0 ? free : ...` turned `false ? ...`: subtracting nothing from free
//     gives free. fits: `occupancies.length === 0 ||` turned `false ||`: with no occupancy seatLeft answers
//     true (seatsPerTimeSlot is null or at least 1).
//   - planHost: `host.groupId ?? ''` turned another string: slots.ts indexes groups by `groupId ?? ''`, so
//     every host without a group gets an undefined index, and the round robin's Int32Array keeps
//     `servedIn[undefined]` as one property: those hosts still form one group, served once.
//   - seatUseAt: `start === start && end === end` turned `||`, `true && ...` or `... && true`: it is only
//     asked about a start every listed host fits, and seatLeft has refused any occupancy that overlaps the
//     candidate without being exactly it.
//   - seatLeft: `seatsPerTimeSlot === null ||` turned `false ||`: occupancies exist only when the query has
//     seats, and without occupancies it is not called.
//
// working-hours.ts: first run 100 killed, 23 timed out, 34 survived (78.3%). workingPieces and workingRunAfter
// were tested only through workingIntervals and the slots: twenty survivors broke their own contracts (an
// empty window, pieces that do not meet the window, an empty range, the run across dates and its stop at a
// gap or at `until`, "open all week" read too widely, overrides out of date order) and each is killed by a
// direct test now (applied by hand): 143 of 157 (91.1%). Three guards that only repeated what the next
// lines decide are gone (a day off filtered before its empty range is dropped, an empty day skipped, the
// all-week pre-check). The survivors left are equivalent or performance-only:
//   - indexSchedule: `hasOverrides` turned true (`size >= 0`, `if (true)`): a date without overrides finds
//     none in the map and falls through to the weekly rules; only the lookup is saved.
//   - workingPieces: `localDayNumber(to - 1)` turned `to + 1`: the extra date's pieces start at or after
//     `to` and are filtered out; `dated.length > 1 ? normalizeIntervals(dated) : dated` turned `true ?` or
//     `>= 1`: one interval normalizes to itself.
//   - workingRunAfter: `overrideDays` of a schedule not open all week turned another list: only read when it
//     is; `find((day) => day > dayNo)` turned `>=`: the stretch is taken only on a date that is not an
//     override, so the date itself never matches; `dayStart === cursor &&` turned `true &&`: from inside a
//     date the run starts at `from` instead of at the date's midnight, and the time before `from` is
//     already among the plan's pieces (host-availability.ts unions them).
//
// host-runs.ts: 138 killed, 18 timed out, 26 survived (85.7%). One was real, the exactness guard of the
// place-times-code numbers loosened by 4 places (`+ 2` turned `- 2`): a test puts a run where the numbers pass
// 2^53 only then, and the unranked path mistakes a host joining for one leaving. Nine guarded nothing and
// are gone (the first rank is always 0; ranked places need no deduplication, rankOf finds a place's first
// copy). 157 of 173 (about 90.8%, counting the removed lines' mutants out). Killed since (engineWork
// gridMerges and rankedGrids): the one-grid shortcut turned off (`size <= 1` turned `< 1`, `false`, or its
// block emptied), and places ranked where they need not be (`last = -Infinity` turned `+Infinity`, the rank
// test's `true`, `last + origin`, `* step`): 164 of 173 by hand (94.8%). The nine left are equivalent:
//   - startsOfRuns: `run < runs.firsts.length` turned `<=` (the extra run is NaN: a grid of its own that
//     visits nothing); `<` turned `<=` between grids: starts of two grids never coincide.
//   - sweepGrid: the rank test's `>=` (codes are even, 2^53 - 1 odd: checked on both sides of the edge);
//     `i < gridRuns.length` and `at < keys.length` turned `<=`: writes past a Float64Array's end are
//     dropped, and the break before the end comes first; that break turned `false` or `at - 1 ===`: after
//     the last event no host is active, so the next test skips the place; `nextRank === rank ||` turned
//     `false ||`: a place with more events to apply lists `until === place`, an empty loop.
//   - rankOf: `high = places.length - 1` turned `+ 1`: the place is held, so the search ends on it.
//
// zones.ts (second run, after the work counters): 231 killed, 35 timed out, 21 survived (92.7%; first run 247 of
// 288); one more killed since (below): 267 of 287 (93.0%). The caches now answer to zoneWork() (Intl probes, table searches), and the engine tests hold each to
// the work it saves: tables and spans not kept, the last-offset cache missing, the bisection's probes and the
// neighbours' shared edges are killed. The run shared the machine with engine test runs, so a few of its 35
// timeouts may be slow survivors. The 21 left:
//   - utcTime: the Date.UTC shortcut for years outside 0-99 narrowed or dropped (four): setUTCFullYear gives
//     the same instant for every year.
//   - probeOffsetSeconds: the bare "GMT" answer (ICU in Node 22 and 24 prints GMT+00:00 for UTC), and the
//     U+2212 minus (the en-US formatter prints '-').
//   - firstChange's second-level pass forced or `>=` (two): after the quarter-hour bisection `low` and `high`
//     are a quarter hour apart (spans start on multiples of 6 days), never within a second; `high += 1000`:
//     the second-level bisection over one second more ends on the same second with as many probes. (`high +
//     1000` probed, listed here before, is killed: a quarter-hour transition then costs more than 13 probes.)
//   - readSpan: `change === at ? seconds : probe` turned either way (they differ only with two transitions
//     between two probes 3 days apart, which no zone has had since 1900: checked with Temporal over every
//     IANA zone; the shortest stay is Freetown's 3.99 days); the same-minutes test turned `true` or read past
//     the end: an entry repeating its offset.
//   - lastZone's initial value (two strings): the NaN bounds miss first anyway. offsetMinutes' hit test at
//     `epochMs > lastFrom`: one search more at a transition's first instant. The binary search from
//     `starts.length + 1`, and lastUntil's `low - 1`: the same entry, or a cache that only misses more.
//   - epochOfWallClock's hit test turned false, `>` or `<=` (three): its two lookups then hit offsetMinutes'
//     own cache (no search, no probe); only two calls are saved.
//
// slot-query.ts: 3 killed of 3 (100%; the file is types and two constants).
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
// All of src/scheduling/ run, with zones.ts's second run: 1,696 of 1,837 mutants killed or timed out (92.3%).
// Not measured since: the 28 survivors killed by hand above would make it 1,724 of 1,837 (93.8%); the
// counters' own lines add mutants that the exact counts kill; slots.ts's firstPerDate skip is now used by
// onlyShowFirstAvailableSlot (its resume mutants should now fail the tests), hosts' time away (`away`) and
// the out_of_office reason are new, and the shortcuts and guards removed from slots.ts, host-availability.ts,
// working-hours.ts and booking-limits.ts took about ten listed survivors with them. A run of the changed files
// on a quiet machine gives the next tally; 95% is not reached yet (issue 27).
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
