/**
 * Domain filters with external-dns semantics: `--domain-filter example.org` matches the apex and
 * every name below it, a filter with a leading dot matches only names below it, exclusions win,
 * and a regex filter (include and/or exclude) replaces the list filters when set.
 */
import { domainToASCII } from 'node:url';

export interface DomainFilterOptions {
  include?: readonly string[];
  exclude?: readonly string[];
  regexInclude?: RegExp | undefined;
  regexExclude?: RegExp | undefined;
}

export class DomainFilter {
  readonly include: readonly string[];
  readonly exclude: readonly string[];
  readonly regexInclude: RegExp | undefined;
  readonly regexExclude: RegExp | undefined;

  constructor(options: DomainFilterOptions = {}) {
    this.include = normaliseFilters(options.include ?? []);
    this.exclude = normaliseFilters(options.exclude ?? []);
    this.regexInclude = options.regexInclude;
    this.regexExclude = options.regexExclude;
  }

  get usesRegex(): boolean {
    return this.regexInclude !== undefined || this.regexExclude !== undefined;
  }

  isConfigured(): boolean {
    return this.usesRegex || this.include.length > 0 || this.exclude.length > 0;
  }

  match(domain: string): boolean {
    const name = stripDomain(domain);
    if (this.usesRegex) {
      if (this.regexExclude !== undefined && this.regexExclude.test(name)) return false;
      return this.regexInclude === undefined || this.regexInclude.test(name);
    }
    return matchList(this.include, name, true) && !matchList(this.exclude, name, false);
  }

  /** Why a name is filtered out, for `explain`; undefined when it matches. */
  explainMismatch(domain: string): string | undefined {
    if (this.match(domain)) return undefined;
    const name = stripDomain(domain);
    if (this.usesRegex) {
      if (this.regexExclude?.test(name) === true) return `matches --regex-domain-exclusion ${this.regexExclude.source}`;
      return `does not match --regex-domain-filter ${this.regexInclude?.source ?? ''}`;
    }
    if (!matchList(this.include, name, true)) return `outside the domain filter (${this.include.join(', ')})`;
    return `excluded by --exclude-domains (${this.exclude.filter((f) => matchList([f], name, false)).join(', ')})`;
  }
}

function stripDomain(domain: string): string {
  const lower = domain.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

function normaliseFilters(filters: readonly string[]): string[] {
  return filters
    .map((f) => f.trim())
    .filter((f) => f !== '')
    .map((f) => {
      const leadingDot = f.startsWith('.');
      const bare = stripDomain(leadingDot ? f.slice(1) : f);
      const ascii = domainToASCII(bare) || bare;
      return leadingDot ? `.${ascii}` : ascii;
    });
}

// Runs once per planned name, so it avoids building strings or closures per call.
function matchList(filters: readonly string[], name: string, whenEmpty: boolean): boolean {
  if (filters.length === 0) return whenEmpty;
  for (const filter of filters) {
    if (filter.startsWith('.')) {
      if (name.endsWith(filter)) return true;
    } else if (name === filter || (name.length > filter.length && name.endsWith(filter) && name.charCodeAt(name.length - filter.length - 1) === 0x2e)) {
      return true;
    }
  }
  return false;
}

/** What the planner needs from a filter; lets several filters be combined. */
export interface DomainMatcher {
  /** False when the filter lets every name through, so callers can skip matching. */
  isConfigured(): boolean;
  match(domain: string): boolean;
  explainMismatch(domain: string): string | undefined;
}

/** A name passes only when every filter lets it through (the user's filter and the provider's zones). */
export class AllDomainFilters implements DomainMatcher {
  private readonly filters: readonly DomainMatcher[];
  constructor(filters: readonly DomainMatcher[]) {
    this.filters = filters;
  }
  isConfigured(): boolean {
    return this.filters.some((f) => f.isConfigured());
  }
  match(domain: string): boolean {
    return this.filters.every((f) => f.match(domain));
  }
  explainMismatch(domain: string): string | undefined {
    for (const f of this.filters) {
      const why = f.explainMismatch(domain);
      if (why !== undefined) return why;
    }
    return undefined;
  }
}
