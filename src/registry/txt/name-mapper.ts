/**
 * Maps record names to the names of their ownership TXT records and back, exactly as
 * external-dns's affix name mapper does, so both tools find each other's TXT records.
 *
 * New format: `<prefix><type>-<first label><suffix>.<rest>` (e.g. `a-www.example.org`), or with
 * `%{record_type}` in the prefix/suffix the type goes there instead of the `<type>-` marker.
 * Old format (external-dns < 0.12): the same without any type marker; it is only ever read.
 */

/** Placeholder in --txt-prefix / --txt-suffix that is replaced by the lower-case record type. */
export const RECORD_TYPE_TEMPLATE = '%{record_type}';

/**
 * Record types recognised as type markers when reading TXT names, in external-dns's order (the
 * order decides which template expansion matches first). CAA is ours: external-dns cannot map a
 * `caa-` TXT back, which would leave CAA records without an owner.
 */
const MARKER_TYPES = ['A', 'AAAA', 'CNAME', 'NS', 'MX', 'PTR', 'SRV', 'NAPTR', 'TXT', 'DNAME', 'CAA'] as const;

export interface TXTNameMapperOptions {
  prefix?: string;
  suffix?: string;
  wildcardReplacement?: string;
  /**
   * Zones to split names at instead of the first dot (newest external-dns does this when it
   * knows the zones). Empty keeps the first-dot split that every external-dns release reads.
   */
  zones?: readonly string[];
}

export interface MappedName {
  dnsName: string;
  /** Upper-case record type, or undefined for an old-format TXT that names no type. */
  recordType: string | undefined;
}

export class TXTNameMapper {
  readonly prefix: string;
  readonly suffix: string;
  readonly wildcardReplacement: string;
  private readonly zones: readonly string[];

  constructor(options: TXTNameMapperOptions = {}) {
    this.prefix = (options.prefix ?? '').toLowerCase();
    this.suffix = (options.suffix ?? '').toLowerCase();
    this.wildcardReplacement = (options.wildcardReplacement ?? '').toLowerCase();
    this.zones = (options.zones ?? [])
      .map((z) => z.replace(/^\.+|\.+$/g, '').toLowerCase())
      .filter((z) => z !== '')
      .sort((a, b) => b.length - a.length);
  }

  /** True when the record type is carried by `%{record_type}` in the prefix or suffix. */
  get recordTypeInAffix(): boolean {
    return this.prefix.includes(RECORD_TYPE_TEMPLATE) || this.suffix.includes(RECORD_TYPE_TEMPLATE);
  }

  /** The new-format ownership TXT name for a record. */
  toTXTName(dnsName: string, recordType: string): string {
    const type = recordType.toLowerCase();
    const [splitHost, domain] = this.splitName(dnsName);
    let host = splitHost;
    const prefix = this.prefix.replaceAll(RECORD_TYPE_TEMPLATE, type);
    const suffix = this.suffix.replaceAll(RECORD_TYPE_TEMPLATE, type);
    if (this.wildcardReplacement !== '' && host === '*') host = this.wildcardReplacement;
    if (!this.recordTypeInAffix) host = `${type}-${host}`;
    return domain === '' ? `${prefix}${host}${suffix}` : `${prefix}${host}${suffix}.${domain}`;
  }

  /**
   * The record a TXT name belongs to, or undefined when the name does not carry this mapper's
   * prefix/suffix. A result without recordType is an old-format TXT.
   */
  toEndpointName(txtName: string): MappedName | undefined {
    const name = txtName.toLowerCase();
    if (this.isPrefixMode()) return this.dropAffix(name);

    const zone = this.findZone(name);
    if (zone !== undefined) {
      const mapped = this.dropAffix(name.slice(0, -(zone.length + 1)));
      return mapped === undefined ? undefined : { dnsName: `${mapped.dnsName}.${zone}`, recordType: mapped.recordType };
    }
    // A suffix with dots spans that many extra labels after the first one.
    const dots = countDots(this.suffix);
    const parts = splitN(name, '.', dots + 2);
    if (parts.length <= dots) return undefined;
    const mapped = this.dropAffix(parts.slice(0, dots + 1).join('.'));
    if (mapped === undefined) return undefined;
    const rest = parts[dots + 1];
    return rest === undefined ? mapped : { dnsName: `${mapped.dnsName}.${rest}`, recordType: mapped.recordType };
  }

  private isPrefixMode(): boolean {
    return this.suffix === '';
  }

  private findZone(name: string): string | undefined {
    const bare = name.endsWith('.') ? name.slice(0, -1) : name;
    return this.zones.find((zone) => bare.endsWith(`.${zone}`));
  }

  private splitName(dnsName: string): [string, string] {
    const bare = dnsName.endsWith('.') ? dnsName.slice(0, -1) : dnsName;
    const zone = this.findZone(bare);
    if (zone !== undefined) return [bare.slice(0, -(zone.length + 1)), zone];
    const dot = bare.indexOf('.');
    return dot < 0 ? [bare, ''] : [bare.slice(0, dot), bare.slice(dot + 1)];
  }

  /** Strips the prefix (prefix mode) or suffix (suffix mode) and finds the record type. */
  private dropAffix(name: string): MappedName | undefined {
    const prefixMode = this.isPrefixMode();
    let prefix = this.prefix;
    let suffix = this.suffix;
    if (this.recordTypeInAffix) {
      for (const type of MARKER_TYPES) {
        const lower = type.toLowerCase();
        const typedPrefix = prefix.replaceAll(RECORD_TYPE_TEMPLATE, lower);
        const typedSuffix = suffix.replaceAll(RECORD_TYPE_TEMPLATE, lower);
        if (prefixMode && name.startsWith(typedPrefix)) return { dnsName: name.slice(typedPrefix.length), recordType: type };
        if (!prefixMode && name.endsWith(typedSuffix)) return { dnsName: name.slice(0, name.length - typedSuffix.length), recordType: type };
      }
      // Old-format records were written with the template left out.
      prefix = prefix.replaceAll(RECORD_TYPE_TEMPLATE, '');
      suffix = suffix.replaceAll(RECORD_TYPE_TEMPLATE, '');
    }
    if (prefixMode && name.startsWith(prefix)) return extractTypeMarker(name.slice(prefix.length));
    if (!prefixMode && name.endsWith(suffix)) return extractTypeMarker(name.slice(0, name.length - suffix.length));
    return undefined;
  }
}

/** Reads a leading `<type>-` marker; without one the name is an old-format TXT name. */
function extractTypeMarker(name: string): MappedName {
  const first = name.split('-', 1)[0] ?? '';
  const type = MARKER_TYPES.find((t) => t.toLowerCase() === first);
  if (type === undefined) return { dnsName: name, recordType: undefined };
  const marker = `${first}-`;
  return { dnsName: name.startsWith(marker) ? name.slice(marker.length) : name, recordType: type };
}

function countDots(text: string): number {
  return text.split('.').length - 1;
}

/** Go's strings.SplitN: at most n parts, the last holding the unsplit remainder. */
function splitN(text: string, sep: string, n: number): string[] {
  const parts: string[] = [];
  let rest = text;
  while (parts.length < n - 1) {
    const at = rest.indexOf(sep);
    if (at < 0) break;
    parts.push(rest.slice(0, at));
    rest = rest.slice(at + sep.length);
  }
  parts.push(rest);
  return parts;
}
