/** Flags of `hostwarden privatelink-controller`. Listed once in EXTRA_FLAGS (src/cli/wiring.ts). */
import type { FlagSpec } from '../config/flags.ts';

export const PRIVATELINK_FLAGS: readonly FlagSpec[] = [];
