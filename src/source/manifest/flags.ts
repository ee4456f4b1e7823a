/** Flags of the manifest source beyond `--manifests-dir` (which is in the core table). */
import type { FlagSpec } from '../../config/flags.ts';

/**
 * 16 MiB. A manifest file is parsed whole (the YAML parser keeps every node to report lines), which
 * measured about 0.36 s and 55 MB of memory per MiB of DNSEndpoint YAML; without a bound, one
 * stray 50 MB file took ~37 s and 1.8 GB. 16 MiB is three times the largest file the benchmarks
 * use (50k endpoints in one DNSEndpoint, 5.2 MiB) and ten times what one Kubernetes object can be
 * (etcd's 1.5 MiB request limit), so real manifests fit, while the worst case stays within
 * seconds and about a gigabyte. Lower it for small memory limits.
 */
export const MANIFEST_MAX_BYTES_DEFAULT = 16 * 1024 * 1024;

export const MANIFEST_FLAGS: readonly FlagSpec[] = [
  {
    name: 'manifest-max-bytes',
    kind: 'int',
    default: String(MANIFEST_MAX_BYTES_DEFAULT),
    help: 'Largest manifest file the manifest source reads, in bytes; a larger file is reported and skipped, keeping the records it had.',
  },
];
