/** Flags of `hostwarden dnsrecord-controller`. Listed once in EXTRA_FLAGS (src/cli/wiring.ts). */
import type { FlagSpec } from '../config/flags.ts';

export const DNSRECORD_FLAGS: readonly FlagSpec[] = [];
