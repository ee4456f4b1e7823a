/** Flags of the webhook provider (client) and of `hostwarden webhook-server`, with external-dns's names where it has them. */
import type { FlagSpec } from '../../config/flags.ts';

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
    name: 'listen',
    kind: 'string',
    default: '127.0.0.1:8888',
    help: 'webhook-server: address of the webhook API, /healthz and /metrics (admission-webhook reads it too, with its own default :9443).',
  },
];
