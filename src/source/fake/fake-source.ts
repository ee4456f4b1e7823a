/**
 * `--source=fake`: external-dns's fake source (source/fake.go), dummy endpoints for trying a
 * provider without a cluster. Its domains are `--fqdn-template` rendered once at start-up on a
 * placeholder Pod named `fake` in namespace `default` (`example.com` without the flag; several
 * names separated by commas give several domains). Each `endpoints()` generates, for every
 * domain, one endpoint of each record type external-dns knows (A, AAAA, CNAME, TXT, SRV, NS, PTR,
 * MX, NAPTR, DNAME) with random four-letter names under the domain (NS and MX at the domain
 * itself; SRV and NAPTR at `_sip._udp.<domain>`); A and AAAA get one target per domain from the
 * documentation ranges (192.0.2.0/24, 2001:db8::/32). Every endpoint has set identifier `fake` and
 * resource label `fake/default/<name>`.
 *
 * As upstream: the generator is seeded with a constant at construction, so a process generates the
 * same sequence each run but new names at every sync, and the source never signals a change. The
 * generator is injected (`intn`), so tests are deterministic; Hostwarden's default generator is not
 * Go's math/rand, so its names differ from external-dns's (same shape).
 */
import type { Config } from '../../config/config.ts';
import { LABEL_RESOURCE, newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint, RecordType } from '../../endpoint/endpoint.ts';
import { ConfigError } from '../../errors.ts';
import { mergeEndpoints } from '../kube/merge.ts';
import type { Source } from '../source.ts';
import { FQDN_TEMPLATE_FLAG, FqdnTemplate, TemplateExecutionError } from '../translate/fqdn-template.ts';
import { readMeta } from '../translate/object.ts';
import { reverseName } from '../wrappers/ptr.ts';

/** A random integer in [0, n). */
export type IntN = (n: number) => number;

export const DEFAULT_FAKE_DOMAIN = 'example.com';
/** external-dns's seed (rand.NewSource(9673)). */
const SEED = 9673;
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
/** external-dns's endpoint.KnownRecordTypes, in its order. */
export const FAKE_RECORD_TYPES: readonly RecordType[] = ['A', 'AAAA', 'CNAME', 'TXT', 'SRV', 'NS', 'PTR', 'MX', 'NAPTR', 'DNAME'];
const SET_IDENTIFIER = 'fake';

/** The placeholder Pod external-dns renders the template on. */
const FAKE_POD = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'fake', namespace: 'default' } };

/** A small seeded generator (mulberry32): the same sequence from the same seed. */
export function seededIntN(seed: number): IntN {
  let state = seed >>> 0;
  return (n) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const r = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return Math.floor(r * n);
  };
}

/** The domains from `--fqdn-template`, rendered on the placeholder Pod; `example.com` without it. */
export function fakeDomains(fqdnTemplates: readonly string[]): string[] {
  const template = FqdnTemplate.fromFlags({ fqdn: fqdnTemplates });
  if (template === undefined || !template.hasFqdn) return [DEFAULT_FAKE_DOMAIN];
  const meta = readMeta(FAKE_POD);
  if (meta === undefined) return [DEFAULT_FAKE_DOMAIN];
  try {
    const names = template.withSource('fake').execute(FAKE_POD, meta);
    return names.length > 0 ? names : [DEFAULT_FAKE_DOMAIN];
  } catch (err) {
    if (err instanceof TemplateExecutionError) throw new ConfigError(`rendering fqdn template: ${err.message}`, FQDN_TEMPLATE_FLAG);
    throw err;
  }
}

export class FakeSource implements Source {
  readonly name = 'fake';
  private readonly domains: readonly string[];
  private readonly intn: IntN;

  constructor(options: { domains: readonly string[]; intn: IntN }) {
    this.domains = options.domains;
    this.intn = options.intn;
  }

  static fromConfig(cfg: Config): FakeSource {
    return new FakeSource({ domains: fakeDomains(cfg.fqdnTemplates), intn: seededIntN(SEED) });
  }

  endpoints(): Promise<Endpoint[]> {
    const out: Endpoint[] = [];
    for (const domain of this.domains) for (const type of FAKE_RECORD_TYPES) out.push(this.endpointFor(type, domain));
    return Promise.resolve(mergeEndpoints(out));
  }

  /** external-dns's fake source never signals a change: each sync generates anew. */
  addEventHandler(_handler: () => void): () => void {
    return () => undefined;
  }

  /** One endpoint of `type` under `domain`, drawing from the generator in external-dns's order. */
  endpointFor(type: RecordType, domain: string): Endpoint {
    const [dnsName, targets] = this.nameAndTargets(type, domain);
    return newEndpoint({ dnsName, recordType: type, targets, setIdentifier: SET_IDENTIFIER, labels: { [LABEL_RESOURCE]: `fake/default/${dnsName}` } });
  }

  private nameAndTargets(type: RecordType, domain: string): [string, string[]] {
    const name = (): string => this.dnsName(4, domain);
    const times = (gen: () => string): string[] => this.domains.map(() => gen());
    switch (type) {
      case 'A':
        return [name(), times(() => this.ipv4())];
      case 'AAAA':
        return [name(), times(() => this.ipv6())];
      case 'CNAME':
      case 'DNAME':
        return [name(), [name()]];
      case 'TXT':
        return [name(), ['"heritage=external-dns,external-dns/owner=fake"']];
      case 'SRV':
        return [`_sip._udp.${domain}`, [`10 20 5060 ${name()}.`]];
      case 'NS':
        return [domain, [this.dnsName(3, domain)]];
      case 'PTR': {
        const host = name();
        return [reverseName(this.ipv4()) ?? '', [host]];
      }
      case 'MX':
        return [domain, [`10 ${name()}`]];
      case 'NAPTR':
        return [`_sip._udp.${domain}`, [`100 10 "u" "E2U+sip" "!^.*$!sip:info@${domain}!" .`]];
      default:
        throw new Error(`fake source: unsupported record type ${type}`);
    }
  }

  private dnsName(prefixLength: number, domain: string): string {
    let prefix = '';
    for (let i = 0; i < prefixLength; i++) prefix += LETTERS[this.intn(LETTERS.length)] ?? 'a';
    return `${prefix}.${domain}`;
  }

  /** 192.0.2.1–253, the documentation range of RFC 5737. */
  private ipv4(): string {
    return `192.0.2.${this.intn(253) + 1}`;
  }

  /** 2001:db8::/32, the documentation range of RFC 3849. */
  private ipv6(): string {
    return `2001:db8::${(this.intn(0xffff) + 1).toString(16)}:${(this.intn(0xffff) + 1).toString(16)}`;
  }
}
