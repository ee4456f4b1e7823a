/**
 * Flags of `hostwarden privatelink-controller`. Listed once in EXTRA_FLAGS (src/cli/wiring.ts). It
 * also reads the shared `--kubeconfig`, `--leader-elect`, `--leader-election-*`, `--metrics-address`
 * `--tls-cert-file`, `--tls-private-key-file`, `--tls-self-signed` (admission) and, for AWS, `--aws-endpoint-url` (every service, for emulators), `--aws-api-retries` and
 * `--aws-requests-per-second` (per account).
 */
import type { FlagSpec } from '../config/flags.ts';

export const PRIVATELINK_FLAGS: readonly FlagSpec[] = [
  {
    name: 'hive-namespace',
    kind: 'string',
    default: 'hive',
    help: 'privatelink-controller: namespace of the Secrets HiveConfig refers to (hub and associated-VPC credentials).',
  },
  { name: 'privatelink-workers', kind: 'int', default: '2', help: 'privatelink-controller: ClusterDeployments reconciled at the same time.' },
  {
    name: 'privatelink-endpoint-wait',
    kind: 'duration',
    default: '30s',
    help: 'privatelink-controller: how long one reconcile waits for a new VPC endpoint to become available (then it comes back later).',
  },
  {
    name: 'privatelink-admission-listen',
    kind: 'string',
    default: '',
    help: 'privatelink-controller: serve the ClusterDeployment admission check (HTTPS, /validate-clusterdeployments-privatelink) here, with --tls-cert-file/--tls-private-key-file or --tls-self-signed ("" disables it).',
  },
];

/** Default Lease of the controller, so it never shares one with `hostwarden run`. */
export const PRIVATELINK_LEASE = 'hostwarden-privatelink';
