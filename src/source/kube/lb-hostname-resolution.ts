/**
 * `--resolve-service-load-balancer-hostname`: a LoadBalancer Service whose load balancer has a
 * hostname (ELB, ...) publishes the addresses that hostname resolves to, as A/AAAA records, instead
 * of a CNAME to it, as external-dns does. Like external-dns it resolves on every sync (a load
 * balancer's addresses change without the Service changing), skips a hostname that does not
 * resolve (logged), and leaves names from a `target` annotation, `spec.externalIPs` and other
 * sources alone. It wraps the service source, whose translations stay pure.
 */
import { lookup } from 'node:dns/promises';
import { isIPv6 } from 'node:net';
import { cloneEndpoint, newEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { errorMessage } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import type { Source } from '../source.ts';
import { annotationValue } from '../translate/annotations.ts';
import type { KubeObjectSource } from './kube-source.ts';

/** Every address of a name (A and AAAA), as Go's net.LookupIP. */
export type LookupAll = (hostname: string) => Promise<string[]>;

export const lookupAll: LookupAll = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export interface LoadBalancerHostnameResolutionOptions {
  source: KubeObjectSource;
  logger: Logger;
  lookup?: LookupAll;
}

interface ServiceShape {
  metadata: { annotations?: Record<string, string> };
  spec?: { type?: string; externalIPs?: string[] };
  status?: { loadBalancer?: { ingress?: { hostname?: string }[] } };
}

export class LoadBalancerHostnameResolution implements Source {
  readonly name: string;
  private readonly source: KubeObjectSource;
  private readonly log: Logger;
  private readonly lookup: LookupAll;

  constructor(opts: LoadBalancerHostnameResolutionOptions) {
    this.source = opts.source;
    this.name = opts.source.name;
    this.log = opts.logger;
    this.lookup = opts.lookup ?? lookupAll;
  }

  async endpoints(): Promise<Endpoint[]> {
    const all = await this.source.endpoints();
    const resolvable = all.filter((ep) => this.loadBalancerHostnames(ep) !== undefined);
    if (resolvable.length === 0) return all;
    const addresses = await this.resolveAll(new Set(resolvable.flatMap((ep) => ep.targets)));
    const drop = new Set<Endpoint>(resolvable);
    // A/AAAA endpoints of the same Service, name and set get the resolved addresses added.
    const merged = new Map<string, Endpoint>();
    const out: Endpoint[] = [];
    for (const ep of all) {
      if (drop.has(ep)) continue;
      if (ep.recordType === 'A' || ep.recordType === 'AAAA') {
        const copy = cloneEndpoint(ep);
        merged.set(groupKey(ep, ep.recordType), copy);
        out.push(copy);
      } else out.push(ep);
    }
    for (const ep of resolvable) {
      const ips = ep.targets.flatMap((t) => addresses.get(t) ?? []);
      for (const type of ['A', 'AAAA'] as const) {
        const family = ips.filter((ip) => isIPv6(ip) === (type === 'AAAA'));
        if (family.length === 0) continue;
        const existing = merged.get(groupKey(ep, type));
        if (existing !== undefined) {
          for (const ip of family) if (!existing.targets.includes(ip)) existing.targets.push(ip);
          continue;
        }
        const created = newEndpoint({ ...ep, recordType: type, targets: [...new Set(family)] });
        merged.set(groupKey(ep, type), created);
        out.push(created);
      }
    }
    return out;
  }

  addEventHandler(handler: () => void): () => void {
    return this.source.addEventHandler(handler);
  }

  async close(): Promise<void> {
    await this.source.close();
  }

  /** The load-balancer hostnames a CNAME of a LoadBalancer Service points to, when it came from the Service's status. */
  private loadBalancerHostnames(ep: Endpoint): Set<string> | undefined {
    if (ep.recordType !== 'CNAME') return undefined;
    const resource = ep.labels['resource'] ?? '';
    if (!resource.startsWith('service/')) return undefined;
    const svc = this.source.object(resource.slice('service/'.length)) as ServiceShape | undefined;
    if (svc === undefined || svc.spec?.type !== 'LoadBalancer' || (svc.spec.externalIPs ?? []).length > 0) return undefined;
    if (annotationValue(svc.metadata.annotations ?? {}, 'target') !== undefined) return undefined;
    const hostnames = new Set(
      (svc.status?.loadBalancer?.ingress ?? []).flatMap((i) => (i.hostname === undefined || i.hostname === '' ? [] : [i.hostname.replace(/\.$/, '')])),
    );
    return ep.targets.every((t) => hostnames.has(t.replace(/\.$/, ''))) ? hostnames : undefined;
  }

  private async resolveAll(hostnames: Set<string>): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    await Promise.all(
      [...hostnames].map(async (hostname) => {
        try {
          out.set(hostname, await this.lookup(hostname));
        } catch (err) {
          this.log.warn({ hostname, err: errorMessage(err) }, 'could not resolve a load-balancer hostname; its addresses are left out this sync');
        }
      }),
    );
    return out;
  }
}

function groupKey(ep: Endpoint, type: string): string {
  return `${ep.labels['resource'] ?? ''}\u0000${ep.dnsName}\u0000${ep.setIdentifier}\u0000${type}`;
}
