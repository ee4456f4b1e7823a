/**
 * Record-set metadata (ARM's `properties.metadata`, a string map) as external-dns's azure provider
 * carries it on endpoints: one `azure/metadata-<key>` property per entry plus `azure/metadata-keys`,
 * the keys joined with commas. The `azure-tags` annotation arrives as `azure/tags`
 * (`key=value,key=value`) and adjustEndpoints expands it into those properties; records() reads
 * record sets back into the very same properties, so an unchanged annotation plans no change and a
 * changed one is an update. Keys are sorted on both sides (external-dns lists a read record set's
 * keys in Go map order, which can differ from the sorted desired list and rewrite the set).
 */
import { cloneEndpoint } from '../../endpoint/endpoint.ts';
import type { Endpoint, ProviderSpecificProperty } from '../../endpoint/endpoint.ts';

export const AZURE_TAGS_PROPERTY = 'azure/tags';
export const METADATA_PREFIX = 'azure/metadata-';
export const METADATA_KEYS_PROPERTY = 'azure/metadata-keys';

/** The metadata of an annotation value: items split at commas, trimmed, split at the first '='; items without a key or value are skipped. */
export function parseAzureTags(value: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const raw of value.split(',')) {
    const item = raw.trim();
    const eq = item.indexOf('=');
    if (eq < 0) continue;
    const key = item.slice(0, eq).trim();
    const val = item.slice(eq + 1).trim();
    // A repeated key keeps its last value, as external-dns's property setter does.
    if (key !== '' && val !== '') out.set(key, val);
  }
  return out;
}

/** The endpoint properties for a metadata map: one per entry and the sorted key list (none for an empty map). */
export function metadataProperties(metadata: ReadonlyMap<string, string>): ProviderSpecificProperty[] {
  const keys = [...metadata.keys()].sort();
  if (keys.length === 0) return [];
  return [...keys.map((k) => ({ name: METADATA_PREFIX + k, value: metadata.get(k) ?? '' })), { name: METADATA_KEYS_PROPERTY, value: keys.join(',') }];
}

/**
 * The endpoint with `azure/tags` expanded into metadata properties (replacing those of the same
 * names); the same object when it has no `azure/tags`. Endpoints may be shared and frozen: a changed one is a copy.
 */
export function expandAzureTags(ep: Endpoint): Endpoint {
  const tags = ep.providerSpecific.find((p) => p.name === AZURE_TAGS_PROPERTY);
  if (tags === undefined) return ep;
  const copy = cloneEndpoint(ep);
  const metadata = parseAzureTags(tags.value);
  const added = metadataProperties(metadata);
  // As external-dns sets each property: the tags replace the properties of the same names only.
  const replaced = new Set([AZURE_TAGS_PROPERTY, ...added.map((p) => p.name)]);
  copy.providerSpecific = [...copy.providerSpecific.filter((p) => !replaced.has(p.name)), ...added];
  return copy;
}

/** ARM's `metadata` for an endpoint: the entries `azure/metadata-keys` names with a non-empty value; undefined when none. */
export function metadataOfEndpoint(ep: Endpoint): Record<string, string> | undefined {
  const keys = ep.providerSpecific.find((p) => p.name === METADATA_KEYS_PROPERTY)?.value ?? '';
  if (keys === '') return undefined;
  const out: Record<string, string> = {};
  for (const key of keys.split(',')) {
    const value = ep.providerSpecific.find((p) => p.name === METADATA_PREFIX + key)?.value;
    if (value !== undefined && value !== '') out[key] = value;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/** The endpoint properties of a listed record set's metadata (entries without a string value are skipped). */
export function metadataOfRecordSet(metadata: Readonly<Record<string, unknown>> | undefined): ProviderSpecificProperty[] {
  const entries = Object.entries(metadata ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string');
  return metadataProperties(new Map(entries));
}
