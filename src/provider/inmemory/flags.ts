/** Flags of the inmemory provider, with external-dns's names. */
import type { FlagSpec } from '../../config/flags.ts';

export const INMEMORY_FLAGS: readonly FlagSpec[] = [
  {
    name: 'inmemory-zone',
    kind: 'list',
    default: [],
    help: 'inmemory: zone the provider starts with (repeatable; default: --embedded-zone, else the --domain-filter domains).',
  },
];
