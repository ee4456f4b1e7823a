/** Flags of the webhook provider (client) and of `hostwarden webhook-server`, with external-dns's names where it has them. */
import type { FlagValues } from '../../config/config.ts';
import type { FlagSpec } from '../../config/flags.ts';
import { ConfigError } from '../../errors.ts';

export const WEBHOOK_FLAGS: readonly FlagSpec[] = [
  { name: 'webhook-provider-url', kind: 'string', default: 'http://localhost:8888', help: 'webhook: URL of the external-dns webhook provider.' },
  {
    name: 'webhook-provider-read-timeout',
    kind: 'duration',
    default: '5s',
    help: 'webhook: time limit of reads (negotiation, records); webhook-server: of reading a request.',
  },
  {
    name: 'webhook-provider-write-timeout',
    kind: 'duration',
    default: '10s',
    help: 'webhook: time limit of writes (apply changes, adjust endpoints); webhook-server: of answering a request.',
  },
  {
    name: 'webhook-provider-read-header-timeout',
    kind: 'duration',
    default: '5s',
    help: 'webhook-server: time a connection has to send its request headers (wins over --http-headers-timeout unless that is set).',
  },
  {
    name: 'webhook-provider-idle-timeout',
    kind: 'duration',
    default: '30s',
    help: 'webhook-server: a kept-alive connection without a request for this long is closed (wins over --http-idle-timeout unless that is set).',
  },
  {
    name: 'webhook-provider-max-body-size',
    kind: 'int',
    default: String(32 << 20),
    help: 'webhook and webhook-server: largest request or response body in bytes; larger ones are refused (0: no limit).',
  },
  {
    name: 'webhook-server',
    kind: 'bool',
    default: false,
    help: 'run: serve --provider over the webhook protocol on 127.0.0.1:8888 instead of syncing, as external-dns does (same as `hostwarden webhook-server`).',
  },
  {
    name: 'listen',
    kind: 'string',
    default: '127.0.0.1:8888',
    help: 'webhook-server: address of the webhook API, /healthz and /metrics (admission-webhook reads it too, with its own default :9443).',
  },
];

/** --webhook-provider-max-body-size in bytes; 0 lifts the limit, as in external-dns. */
export function webhookMaxBodyBytes(flags: Pick<FlagValues, 'num'>): number {
  const v = flags.num('webhook-provider-max-body-size');
  if (!Number.isInteger(v) || v < 0)
    throw new ConfigError('--webhook-provider-max-body-size must be 0 or a positive number of bytes', '--webhook-provider-max-body-size');
  return v === 0 ? Number.POSITIVE_INFINITY : v;
}
