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
  {
    name: 'server',
    kind: 'string',
    default: '',
    help: "Kubernetes API server URL; replaces the kubeconfig cluster's server, or alone connects without credentials (default: from the kubeconfig).",
  },
  { name: 'request-timeout', kind: 'duration', default: '30s', help: 'Timeout of Kubernetes API requests other than watches (0s: none).' },
  {
    name: 'kube-api-request-timeout',
    kind: 'duration',
    default: '30s',
    help: "external-dns's newer name of --request-timeout; when given, it wins over --request-timeout.",
  },
  {
    name: 'kube-api-qps',
    kind: 'int',
    default: '5',
    help: 'Requests per second each Kubernetes client of run may send (one client per source, one for Events, one for the Lease; a token bucket as client-go).',
  },
  { name: 'kube-api-burst', kind: 'int', default: '10', help: 'Requests a Kubernetes client may send back to back before --kube-api-qps applies.' },
  { name: 'kube-watch-inactivity-timeout', kind: 'duration', default: '3m', help: 'List again when a watch sent nothing, not even a bookmark, for this long.' },
  {
    name: 'events-emit',
    aliases: ['emit-events'],
    kind: 'list',
    default: [],
    help: 'Kubernetes Events written on source objects: RecordReady, RecordDeleted, RecordError (repeatable; default none; alias --emit-events).',
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

/** Where the Kubernetes configuration comes from: --kubeconfig, --kube-context, --server and the environment. */
export function kubeConfigSourceOf(cfg: Config, env: KubeEnv | undefined): KubeConfigSource {
  const server = cfg.flags.str('server');
  return { kubeconfig: cfg.flags.str('kubeconfig'), context: cfg.flags.str('kube-context'), env: env ?? {}, ...(server === '' ? {} : { server }) };
}

/**
 * `rateLimited`: the client external-dns's --kube-api-qps/--kube-api-burst govern (run's sources,
 * Events and Lease); the controllers' clients keep no client-side limit.
 */
export function kubeClientFromConfig(cfg: Config, deps: { logger: Logger; env?: KubeEnv | undefined; rateLimited?: boolean }): KubeClient {
  const flag = cfg.explicit.has('kube-api-request-timeout') ? 'kube-api-request-timeout' : 'request-timeout';
  const timeout = cfg.flags.num(flag);
  if (!(timeout >= 0)) throw new ConfigError(`--${flag} must not be negative`, `--${flag}`);
  const rateLimit = deps.rateLimited === true ? kubeRateLimitOf(cfg) : undefined;
  return KubeClient.fromConfig(kubeConfigSourceOf(cfg, deps.env), deps.logger.child({ component: 'kube' }), timeout, rateLimit);
}

/** --kube-api-qps and --kube-api-burst, checked as external-dns checks them. */
export function kubeRateLimitOf(cfg: Config): { qps: number; burst: number } {
  const qps = cfg.flags.num('kube-api-qps');
  const burst = cfg.flags.num('kube-api-burst');
  if (!(qps > 0)) throw new ConfigError('--kube-api-qps must be greater than 0', '--kube-api-qps');
  if (!(burst > 0)) throw new ConfigError('--kube-api-burst must be greater than 0', '--kube-api-burst');
  return { qps, burst };
}
