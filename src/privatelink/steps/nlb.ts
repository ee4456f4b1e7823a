/** Step 4: the installer's internal NLB `<infraID>-int`, which the endpoint service fronts. */
import type { Elbv2Port, LoadBalancer } from '../aws/ports.ts';
import { wrapped } from '../errors.ts';

export type NlbLookup = { kind: 'active'; lb: LoadBalancer } | { kind: 'missing'; name: string } | { kind: 'notActive'; name: string; state: string };

export function nlbName(infraID: string): string {
  return `${infraID}-int`;
}

export async function discoverNlb(elbv2: Elbv2Port, infraID: string): Promise<NlbLookup> {
  const name = nlbName(infraID);
  const lb = await wrapped('failed to describe load balancer for the cluster', () => elbv2.findLoadBalancer(name));
  if (lb === undefined) return { kind: 'missing', name };
  if (lb.state !== 'active') return { kind: 'notActive', name, state: lb.state };
  return { kind: 'active', lb };
}
