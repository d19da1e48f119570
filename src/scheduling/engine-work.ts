/**
 * Work the engine's shortcuts save, counted since start: sorts of interval lists that did not arrive
 * sorted, busy intervals visited while subtracting, list intersections, seat checks, starts checked one
 * by one (seated event types), free intervals scanned for a run of starts, and round-robin grids merged
 * (runs on more than one grid) or ranked (places too far apart to code exactly), round-robin stretches
 * checked for every group being served, days searched for a rolling booking window's end, and booking limits:
 * the periods tallied (only those with a limit) and the candidates checked against them (none without a limit),
 * and local dates of a schedule read (a schedule open all week is read as one stretch up to its next override). The answers
 * are the same with or without each shortcut: tests hold the shortcuts to these counts.
 */
export const work = { sorts: 0, busyVisits: 0, intersections: 0, seatChecks: 0, startChecks: 0, freeScans: 0, gridMerges: 0, rankedGrids: 0, groupChecks: 0, windowSearchDays: 0, limitTallies: 0, limitChecks: 0, workingDates: 0 };

export const engineWork = (): Readonly<typeof work> => ({ ...work });
