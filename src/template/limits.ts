/**
 * The bounds every execution keeps, so a hostile or mistaken template cannot hang a sync or
 * exhaust the heap. Kept apart from the executor so the functions (format.ts, functions.ts) can
 * check them without importing it.
 */

/** How deep `{{ template }}` calls nest. */
export const MAX_DEPTH = 1000;
/** The longest output, and the longest string any function may return (printf widths, replace, …). */
export const MAX_OUTPUT = 1 << 20;
/** Actions, arguments and text nodes evaluated in one execution. */
export const MAX_STEPS = 1_000_000;
/**
 * Characters all function calls of one execution may return together: each result is at most
 * MAX_OUTPUT, but a `range` rebuilding a long string on every turn would still cost minutes.
 */
export const MAX_PRODUCED = 32 * MAX_OUTPUT;
