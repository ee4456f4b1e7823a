/**
 * Flags of the translation shared by the manifest and Kubernetes sources that the core table
 * (src/config/flags.ts) does not hold. Listed once in EXTRA_FLAGS in src/cli/wiring.ts.
 */
import type { FlagSpec } from '../../config/flags.ts';
import { DEFAULT_ANNOTATION_PREFIX } from './annotations.ts';

export const TRANSLATE_FLAGS: readonly FlagSpec[] = [
  {
    name: 'annotation-prefix',
    kind: 'string',
    default: DEFAULT_ANNOTATION_PREFIX,
    help: 'Prefix of every external-dns annotation key (hostname, ttl, target, alias, …). The default also reads external-dns.alpha.kubernetes.io/ keys; any other prefix is read alone (split-horizon: one instance per prefix).',
  },
];
