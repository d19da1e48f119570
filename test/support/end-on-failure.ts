// Preloaded by the mutation run (stryker.config.mjs): a property that fails reports its first
// counterexample without shrinking it, so a killed mutant costs seconds instead of the 15-18 s shrinking
// takes in the random-query oracle. Whether a mutant dies does not depend on shrinking.
import fc from 'fast-check';

fc.configureGlobal({ endOnFailure: true });
