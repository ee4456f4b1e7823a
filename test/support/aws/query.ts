/**
 * Reading the form bodies of AWS's query protocols (EC2 and awsQuery): lists arrive flattened as
 * `Name.1`, `Name.2` (EC2) or `Name.member.1` (awsQuery), structures as `Name.1.Field`, and EC2
 * filters as `Filter.1.Name` with `Filter.1.Value.1`.
 */
import { randomBytes } from 'node:crypto';

export interface Tag {
  key: string;
  value: string;
}

export interface QueryFilter {
  name: string;
  values: string[];
}

/** Values of `prefix.N` (or `prefix.member.N` when `member`), ordered by N. */
export function listParam(form: URLSearchParams, prefix: string, member = false): string[] {
  const re = new RegExp(`^${escapeRe(prefix)}${member ? '\\.member' : ''}\\.(\\d+)$`);
  const found: [number, string][] = [];
  for (const [k, v] of form) {
    const m = re.exec(k);
    if (m !== null) found.push([Number(m[1]), v]);
  }
  return found.sort((a, b) => a[0] - b[0]).map((e) => e[1]);
}

/** The structures `prefix.N.<field>…` as maps of the rest of the key (`Name`, `Value.1`) to value. */
export function structParam(form: URLSearchParams, prefix: string): URLSearchParams[] {
  const re = new RegExp(`^${escapeRe(prefix)}\\.(\\d+)\\.(.+)$`);
  const byIndex = new Map<number, URLSearchParams>();
  for (const [k, v] of form) {
    const m = re.exec(k);
    if (m === null) continue;
    const i = Number(m[1]);
    const entry = byIndex.get(i) ?? new URLSearchParams();
    entry.append(m[2] ?? '', v);
    byIndex.set(i, entry);
  }
  return [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
}

export function filters(form: URLSearchParams): QueryFilter[] {
  return structParam(form, 'Filter').map((f) => ({ name: f.get('Name') ?? '', values: listParam(f, 'Value') }));
}

/** Tags of `TagSpecification.N` for `resourceType` (tags of specifications without a type count too). */
export function tagSpecifications(form: URLSearchParams, resourceType: string): Tag[] {
  return structParam(form, 'TagSpecification')
    .filter((s) => (s.get('ResourceType') ?? resourceType) === resourceType)
    .flatMap((s) => tagList(s, 'Tag'));
}

export function tagList(form: URLSearchParams, prefix: string): Tag[] {
  return structParam(form, prefix).map((t) => ({ key: t.get('Key') ?? '', value: t.get('Value') ?? '' }));
}

export function boolParam(form: URLSearchParams, name: string): boolean | undefined {
  const v = form.get(name);
  return v === null ? undefined : v === 'true';
}

/**
 * Whether a resource with `tags` passes one of the common tag filters (`tag:<key>`, `tag-key`).
 * Returns undefined for any other filter so the caller can handle it.
 */
export function tagFilterMatches(f: QueryFilter, tags: readonly Tag[]): boolean | undefined {
  if (f.name.startsWith('tag:')) {
    const key = f.name.slice(4);
    return tags.some((t) => t.key === key && f.values.some((v) => globMatch(v, t.value)));
  }
  if (f.name === 'tag-key') return tags.some((t) => f.values.includes(t.key));
  if (f.name === 'tag-value') return tags.some((t) => f.values.includes(t.value));
  return undefined;
}

/** EC2 filter values accept `*` and `?` wildcards. */
export function globMatch(pattern: string, value: string): boolean {
  if (!/[*?]/.test(pattern)) return pattern === value;
  const re = new RegExp(
    `^${pattern
      .split('')
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : escapeRe(c)))
      .join('')}$`,
  );
  return re.test(value);
}

/** Applies tags as CreateTags does: a key present already gets the new value. */
export function mergeTags(current: readonly Tag[], added: readonly Tag[]): Tag[] {
  const out = current.filter((t) => !added.some((a) => a.key === t.key));
  return [...out, ...added.map((t) => ({ ...t }))];
}

/** DeleteTags: a tag given with a value is removed only when the value matches. */
export function removeTags(current: readonly Tag[], removed: readonly { key: string; value?: string }[]): Tag[] {
  return current.filter((t) => !removed.some((r) => r.key === t.key && (r.value === undefined || r.value === t.value)));
}

/** A page of `items` after `token` (an offset), as MaxResults/NextToken paging does. */
export function page<T>(items: readonly T[], form: URLSearchParams, maxName = 'MaxResults', tokenName = 'NextToken'): { items: T[]; next?: string } {
  const start = Number(form.get(tokenName) ?? '0') || 0;
  const max = Number(form.get(maxName) ?? '0') || items.length;
  const slice = items.slice(start, start + max);
  return start + max < items.length ? { items: slice, next: String(start + max) } : { items: slice };
}

export function hexId(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
