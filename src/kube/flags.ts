/**
 * The flags of Hostwarden's Kubernetes client, shared by every command that talks to a cluster:
 * where the configuration comes from, request and watch timeouts, Events about records, and Lease
 * leader election (external-dns names where external-dns has them). Also how a client is built from
 * them, so every command reaches the same cluster the same way.
 */
import type { Config } from '../config/config.ts';
import type { FlagSpec } from '../config/flags.ts';
import { ConfigError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { KubeClient } from './client.ts';
import type { KubeConfigSource, KubeEnv } from './client.ts';

export const EVENT_TYPES = ['RecordReady', 'RecordDeleted', 'RecordError'] as const;

export const KUBE_FLAGS: readonly FlagSpec[] = [
  { name: 'kubeconfig', kind: 'string', default: '', help: 'Kubeconfig file (else $KUBECONFIG, ~/.kube/config, or the in-cluster service account).' },
  { name: 'kube-context', kind: 'string', default: '', help: 'Context of the kubeconfig to use (empty: its current context).' },
  { name: 'request-timeout', kind: 'duration', default: '30s', help: 'Timeout of Kubernetes API requests other than watches (0s: none).' },
  { name: 'kube-watch-inactivity-timeout', kind: 'duration', default: '3m', help: 'List again when a watch sent nothing, not even a bookmark, for this long.' },
  {
    name: 'emit-events',
    kind: 'list',
    default: [...EVENT_TYPES],
    help: 'Kubernetes Events written on source objects: RecordReady, RecordDeleted, RecordError (empty: none).',
  },
  {
    name: 'leader-elect',
    kind: 'bool',
    default: false,
    help: 'Only the holder of a coordination.k8s.io Lease applies changes (on by default when running in a cluster).',
  },
  {
    name: 'leader-election-namespace',
    kind: 'string',
    default: '',
    help: 'Namespace of the leader Lease (default: the service account namespace, else "default").',
  },
  { name: 'leader-election-id', kind: 'string', default: 'hostwarden-leader', help: 'Name of the leader Lease.' },
  { name: 'leader-election-lease-duration', kind: 'duration', default: '15s', help: 'How long a Lease stays valid without renewal.' },
  { name: 'leader-election-renew-deadline', kind: 'duration', default: '10s', help: 'A leader that could not renew for this long stops applying changes.' },
  { name: 'leader-election-retry-period', kind: 'duration', default: '2s', help: 'Time between attempts to acquire or renew the Lease.' },
];

/** Where the Kubernetes configuration comes from: --kubeconfig, --kube-context and the environment. */
export function kubeConfigSourceOf(cfg: Config, env: KubeEnv | undefined): KubeConfigSource {
  return { kubeconfig: cfg.flags.str('kubeconfig'), context: cfg.flags.str('kube-context'), env: env ?? {} };
}

export function kubeClientFromConfig(cfg: Config, deps: { logger: Logger; env?: KubeEnv | undefined }): KubeClient {
  const timeout = cfg.flags.num('request-timeout');
  if (!(timeout >= 0)) throw new ConfigError('--request-timeout must not be negative', '--request-timeout');
  return KubeClient.fromConfig(kubeConfigSourceOf(cfg, deps.env), deps.logger.child({ component: 'kube' }), timeout);
}
