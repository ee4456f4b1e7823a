/** Flags of the pdns provider, with external-dns's names. */
import type { FlagSpec } from '../../config/flags.ts';

export const PDNS_FLAGS: readonly FlagSpec[] = [
  { name: 'pdns-server', kind: 'string', default: 'http://localhost:8081', help: 'pdns: URL of the PowerDNS API server.' },
  { name: 'pdns-api-key', kind: 'string', default: '', help: 'pdns: API key (X-API-Key) of the PowerDNS API.' },
  { name: 'pdns-server-id', kind: 'string', default: 'localhost', help: 'pdns: server id in the API paths.' },
  { name: 'pdns-tls-enabled', kind: 'bool', default: false, help: "pdns: Hostwarden's older switch; TLS follows the https scheme of --pdns-server." },
  { name: 'pdns-tls-ca-cert', kind: 'string', default: '', help: 'pdns: older spelling of --tls-ca (wins over it).' },
  { name: 'pdns-tls-client-cert', kind: 'string', default: '', help: 'pdns: older spelling of --tls-client-cert (wins over it).' },
  { name: 'pdns-tls-client-cert-key', kind: 'string', default: '', help: 'pdns: older spelling of --tls-client-cert-key (wins over it).' },
  { name: 'pdns-skip-tls-verify', kind: 'bool', default: false, help: 'pdns: do not verify the API server certificate (testing only).' },
];
