/** Flags of the connector source, with external-dns's names and default. Listed once in EXTRA_FLAGS in src/cli/wiring.ts. */
import type { FlagSpec } from '../../config/flags.ts';

export const CONNECTOR_FLAGS: readonly FlagSpec[] = [
  {
    name: 'connector-source-server',
    kind: 'string',
    default: 'localhost:8080',
    help: 'connector source: the host:port to read endpoints from at every sync (a []*Endpoint in Go gob encoding, as external-dns).',
  },
];
