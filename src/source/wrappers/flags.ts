/**
 * Flags of the source wrappers: what happens to every desired endpoint after the sources produced
 * them and before the planner sees them (external-dns's source wrappers). Listed once in
 * EXTRA_FLAGS in src/cli/wiring.ts.
 */
import type { FlagSpec } from '../../config/flags.ts';

export const WRAPPER_FLAGS: readonly FlagSpec[] = [
  {
    name: 'min-ttl',
    kind: 'duration',
    default: '0s',
    help: 'TTL of endpoints whose source sets none (no ttl annotation, TTL 0); a set TTL is kept (examples: 1m12s, 72s, 72; 0: the provider default).',
  },
  {
    name: 'target-net-filter',
    kind: 'list',
    default: [],
    help: 'Keep only targets inside these CIDRs (repeatable); an endpoint left without targets is dropped, hostname targets never match.',
  },
  {
    name: 'exclude-target-net',
    kind: 'list',
    default: [],
    help: 'Drop targets inside these CIDRs (repeatable); an endpoint left without targets is dropped.',
  },
  {
    name: 'nat64-networks',
    kind: 'list',
    default: [],
    help: 'NAT64 /96 prefixes (repeatable): an AAAA endpoint with targets inside one also gets an A endpoint with the embedded IPv4 addresses.',
  },
  {
    name: 'create-ptr',
    kind: 'bool',
    default: false,
    help: 'Create a PTR record for every A/AAAA endpoint (the record-type annotation overrides it per object); needs PTR in --managed-record-types and the reverse zones in --domain-filter.',
  },
  {
    name: 'prefer-alias',
    kind: 'bool',
    default: false,
    help: 'CNAME endpoints without an alias property get alias=true, so providers with alias records (aws: Route53 alias, pdns: ALIAS) write those instead (even with --aws-prefer-cname).',
  },
];
