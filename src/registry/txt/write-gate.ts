/**
 * Which ownership TXT names the registry may write: a name must be a valid record name and one
 * the provider's API accepts (PowerDNS and Azure refuse a `*` inside a label). Kept apart from the
 * registry so its rules read in one place.
 */
import { describeEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint } from '../../endpoint/endpoint.ts';
import { isWildcardName, tryNormalizeRecordName } from '../../endpoint/name.ts';
import type { Logger } from '../../log.ts';
import type { Provider } from '../../provider/provider.ts';
import type { TXTNameMapper } from './name-mapper.ts';
import type { OwnershipIndex } from './ownership-index.ts';

/** The TXT half of a change set, as the registry builds it beside the records' changes. */
export interface TXTChanges {
  create: Endpoint[];
  updateOld: Endpoint[];
  updateNew: Endpoint[];
  delete: Endpoint[];
}

export class OwnershipWriteGate {
  constructor(
    private readonly mapper: TXTNameMapper,
    private readonly provider: Provider,
    private readonly logger: Logger,
  ) {}

  /**
   * False (with an error naming the fix) when the record's ownership TXT does not exist yet and
   * its name is not a valid record name (a label pushed past 63 characters, or the name past 253,
   * by the type marker and affixes) or the provider refuses it (refusedName). Writing the record
   * without it would leave a record nobody owns, and sending the name would fail the whole batch.
   * A `*` in the TXT name is fine otherwise: like external-dns, the TXT of `*.apps.example.org` is
   * `a-*.apps.example.org`, where the `*` is data.
   */
  canWrite(record: Endpoint, index: OwnershipIndex | undefined): boolean {
    const name = this.mapper.toTXTName(record.dnsName, record.recordType);
    if (index?.getTXT(name, record.setIdentifier) !== undefined) return true;
    if (tryNormalizeRecordName(name) === undefined) {
      this.logger.error(
        { record: describeEndpoint(record), txt: name },
        'record skipped: its ownership TXT name is not a valid DNS name (the name is too long for its ownership TXT record; shorten it or --txt-prefix/--txt-suffix)',
      );
      return false;
    }
    const refused = this.provider.refusedName?.(name);
    if (refused === undefined) return true;
    const hint =
      isWildcardName(record.dnsName) && this.mapper.wildcardReplacement === '' ? '; set --txt-wildcard-replacement to own wildcard records there' : '';
    this.logger.error(
      { record: describeEndpoint(record), txt: name, provider: this.provider.name },
      `record skipped: the ${this.provider.name} provider cannot hold its ownership TXT name (${refused})${hint}`,
    );
    return false;
  }

  /**
   * Leaves out changes to existing ownership TXT records whose names the provider refuses (an
   * `a-*.apps` TXT put into a PowerDNS zone by other means: its API refuses even to delete it),
   * so one such name cannot fail the provider's whole batch. The record itself is still changed.
   */
  dropRefused(out: TXTChanges): void {
    const refused = (t: Endpoint): boolean => {
      const reason = this.provider.refusedName?.(t.dnsName);
      if (reason === undefined) return false;
      this.logger.warn(
        { txt: t.dnsName, provider: this.provider.name },
        `ownership TXT record left unchanged: the ${this.provider.name} provider cannot change it (${reason})`,
      );
      return true;
    };
    if (this.provider.refusedName === undefined) return;
    out.create = out.create.filter((t) => !refused(t));
    out.delete = out.delete.filter((t) => !refused(t));
    const keep = out.updateNew.map((t) => !refused(t));
    out.updateOld = out.updateOld.filter((_, i) => keep[i] === true);
    out.updateNew = out.updateNew.filter((_, i) => keep[i] === true);
  }
}
