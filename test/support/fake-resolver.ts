/**
 * A HostnameResolver answering from a table, for --resolve-service-load-balancer-hostname tests.
 * Names not in the table do not exist (ENOTFOUND), as `.invalid` names never do (RFC 6761).
 */
import type { AddressFamily, HostnameResolver, ResolvedAddress } from '../../src/source/kube/lb-hostnames.ts';

/** A name's records, or the node:dns error code every look-up of it fails with. */
export type FakeAnswer = { A?: readonly string[]; AAAA?: readonly string[]; ttl?: number } | { error: string };

export class FakeHostnameResolver implements HostnameResolver {
  private readonly answers = new Map<string, FakeAnswer>();
  /** Every look-up, as `name/4` or `name/6`. */
  readonly calls: string[] = [];
  private inFlight = 0;
  /** Most look-ups seen at once. */
  maxInFlight = 0;
  /** Milliseconds each look-up takes (default: none). */
  delayMs = 0;

  constructor(answers: Record<string, FakeAnswer> = {}) {
    for (const [name, answer] of Object.entries(answers)) this.set(name, answer);
  }

  set(name: string, answer: FakeAnswer): void {
    this.answers.set(name.toLowerCase(), answer);
  }

  async resolve(hostname: string, family: AddressFamily): Promise<ResolvedAddress[]> {
    this.calls.push(`${hostname}/${family}`);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
      const answer = this.answers.get(hostname.toLowerCase());
      if (answer === undefined) throw codeError('ENOTFOUND', hostname);
      if ('error' in answer) throw codeError(answer.error, hostname);
      const addresses = (family === 4 ? answer.A : answer.AAAA) ?? [];
      if (addresses.length === 0) throw codeError('ENODATA', hostname);
      return addresses.map((address) => ({ address, ttl: answer.ttl ?? 300 }));
    } finally {
      this.inFlight--;
    }
  }
}

function codeError(code: string, hostname: string): Error {
  return Object.assign(new Error(`query ${code} ${hostname}`), { code });
}
