/** Flags of the google provider, with external-dns's names (plus a key file and an API endpoint). */
import type { FlagSpec } from '../../config/flags.ts';

export const GOOGLE_FLAGS: readonly FlagSpec[] = [
  { name: 'google-project', kind: 'string', default: '', help: 'google: project that holds the managed zones (default: the project of the credentials).' },
  { name: 'google-batch-change-size', kind: 'int', default: '1000', help: 'google: most record sets in one Cloud DNS change.' },
  { name: 'google-batch-change-interval', kind: 'duration', default: '1s', help: 'google: pause between two changes to one project.' },
  {
    name: 'google-zone-visibility',
    kind: 'string',
    default: '',
    choices: ['', 'public', 'private'],
    help: 'google: only zones of this visibility (public, private; empty: both).',
  },
  { name: 'google-key-file', kind: 'string', default: '', help: 'google: service account key file (default: application default credentials).' },
  {
    name: 'google-api-endpoint',
    kind: 'string',
    default: '',
    help: 'google: host[:port] of the Cloud DNS API (default dns.googleapis.com; for tests and private endpoints).',
  },
];
