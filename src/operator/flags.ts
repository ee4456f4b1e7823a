/** Flags of `hostwarden operator`. Listed once in EXTRA_FLAGS (src/cli/wiring.ts). */
import type { FlagSpec } from '../config/flags.ts';

export const OPERATOR_FLAGS: readonly FlagSpec[] = [];
