/** Flags of the pdns provider, with external-dns's names. */
import type { FlagSpec } from '../../config/flags.ts';

export const PDNS_FLAGS: readonly FlagSpec[] = [
  { name: 'pdns-server', kind: 'string', default: 'http://localhost:8081', help: 'pdns: URL of the PowerDNS API server.' },
  { name: 'pdns-api-key', kind: 'string', default: '', help: 'pdns: API key (X-API-Key) of the PowerDNS API.' },
  { name: 'pdns-server-id', kind: 'string', default: 'localhost', help: 'pdns: server id in the API paths.' },
  { name: 'pdns-tls-enabled', kind: 'bool', default: false, help: 'pdns: talk TLS to the API (the URL must be https).' },
  { name: 'pdns-tls-ca-cert', kind: 'string', default: '', help: 'pdns: CA certificate file that signs the API server certificate.' },
  { name: 'pdns-tls-client-cert', kind: 'string', default: '', help: 'pdns: client certificate file for mutual TLS.' },
  { name: 'pdns-tls-client-cert-key', kind: 'string', default: '', help: 'pdns: key file of --pdns-tls-client-cert.' },
  { name: 'pdns-skip-tls-verify', kind: 'bool', default: false, help: 'pdns: do not verify the API server certificate (testing only).' },
];
