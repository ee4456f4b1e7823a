/**
 * V8 heap sizing for the long-running commands. By default V8 lets the old generation grow to up
 * to four times what survived the last full collection when collections are cheap, which is the
 * case for Hostwarden's workload: each sync allocates tens of MB that die young, little survives,
 * and at 20k objects the heap grew from ~100 MB live to ~500 MB before the next full collection
 * (docs/performance.md). A fixed, small growth step keeps the resident size near the live set for
 * a few more collections.
 */
import type { FlagValues } from '../config/config.ts';
import type { FlagSpec } from '../config/flags.ts';
import { ConfigError } from '../errors.ts';

export const HEAP_FLAGS: readonly FlagSpec[] = [
  {
    name: 'heap-growth-percent',
    kind: 'int',
    default: '10',
    help: 'How far the JavaScript heap may grow past its live size before the next full garbage collection, in percent (0 leaves it to V8, which allows up to 300).',
  },
];

/** The validated `--heap-growth-percent`. */
export function heapGrowthPercent(flags: FlagValues): number {
  const value = flags.num('heap-growth-percent');
  if (!Number.isInteger(value) || value < 0 || value > 1000)
    throw new ConfigError('--heap-growth-percent must be a whole number from 0 to 1000', '--heap-growth-percent');
  return value;
}

/** The V8 option for a growth percentage, or undefined to leave V8's own policy. */
export function v8HeapGrowthOption(percent: number): string | undefined {
  return percent === 0 ? undefined : `--heap-growing-percent=${percent}`;
}
