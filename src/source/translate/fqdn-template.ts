/**
 * `--fqdn-template`, `--target-template` and `--fqdn-target-template`, as external-dns's template
 * engine (source/template/engine.go) applies them: each flag is repeatable, its values are joined
 * with "," into one Go template (src/template/), and the output is split on commas, trimmed, a
 * trailing dot dropped, empties dropped, duplicates removed and sorted.
 *
 * Parse errors stop start-up with a ConfigError naming the flag, the value's index and the
 * position (`--fqdn-template[0] "{{.Name": template: endpoint:1:7: unclosed action`). Execution
 * errors are per object: TemplateExecutionError, which the translators turn into a problem for
 * that object (external-dns fails the whole source instead; see the conformance data).
 */
import { ConfigError, HostwardenError } from '../../errors.ts';
import type { GoStruct } from '../../template/values.ts';
import { externalDnsFunctions } from '../../template/functions.ts';
import { TemplateError } from '../../template/position.ts';
import { Template } from '../../template/template.ts';
import type { JsonRecord, ObjectMeta } from './object.ts';
import { typedTemplateData, unstructuredTemplateData } from './template-data.ts';

export const FQDN_TEMPLATE_FLAG = '--fqdn-template';
export const TARGET_TEMPLATE_FLAG = '--target-template';
export const FQDN_TARGET_TEMPLATE_FLAG = '--fqdn-target-template';
type TemplateFlag = typeof FQDN_TEMPLATE_FLAG | typeof TARGET_TEMPLATE_FLAG | typeof FQDN_TARGET_TEMPLATE_FLAG;

/** The name external-dns gives its templates, which Go's messages show (`template: endpoint:1:3: …`). */
const TEMPLATE_NAME = 'endpoint';

/** The values of the three flags, as given (a value may hold several templates separated by commas). */
export interface TemplateFlags {
  fqdn?: readonly string[];
  target?: readonly string[];
  fqdnTarget?: readonly string[];
}

/**
 * A template failed on one object: a problem of that object, whose records are kept as they are
 * (see KubeObjectSource and ManifestSource), while the others sync. Not transient: the same
 * object fails the same way until it or the flag changes.
 */
export class TemplateExecutionError extends HostwardenError {
  readonly flag: string;
  constructor(flag: string, message: string, options: { cause?: unknown } = {}) {
    super('TEMPLATE_EXECUTION_FAILED', `${flag}: ${message}`, options);
    this.flag = flag;
  }
}

/**
 * What a template sees first of an object: the typed Go object by default; the unstructured
 * source gives its own wrapper (see src/source/translate/unstructured.ts). The retry on
 * external-dns's unstructured shape is the same for both.
 */
export type TemplateShape = (obj: JsonRecord, meta: ObjectMeta) => GoStruct;

/** A `host:target` pair from `--fqdn-target-template`. */
export interface HostTarget {
  host: string;
  target: string;
}

class FlagTemplate {
  constructor(
    readonly flag: TemplateFlag,
    readonly template: Template,
  ) {}

  /** Parses each value alone (so the column is the value's own), then all joined (a `define` twice is an error). */
  static compile(flag: TemplateFlag, values: readonly string[], source: string): FlagTemplate | undefined {
    const functions = externalDnsFunctions(source);
    values.forEach((value, i) => {
      const fail = (err: unknown): never => {
        if (err instanceof TemplateError) throw new ConfigError(`${flag}[${i}] ${JSON.stringify(value)}: ${err.message}`, flag);
        throw err;
      };
      try {
        Template.parse(value, { name: TEMPLATE_NAME, functions });
        Template.parse(values.slice(0, i + 1).join(','), { name: TEMPLATE_NAME, functions });
      } catch (err) {
        fail(err);
      }
    });
    const joined = values.join(',');
    if (joined.trim() === '') return undefined;
    return new FlagTemplate(flag, Template.parse(joined, { name: TEMPLATE_NAME, functions }));
  }

  withSource(source: string): FlagTemplate {
    const { isSource } = externalDnsFunctions(source);
    return isSource === undefined ? this : new FlagTemplate(this.flag, this.template.withFunctions({ isSource }));
  }

  /** The rendered names: split on commas, trimmed, without a trailing dot, unique and sorted. */
  execute(obj: JsonRecord, meta: ObjectMeta, shape: TemplateShape = typedTemplateData): string[] {
    let out: string;
    try {
      out = this.template.execute(shape(obj, meta));
    } catch (first) {
      if (!(first instanceof TemplateError)) throw first;
      // As external-dns: retry on the unstructured shape, where JSON keys work (`.Spec.hostnames`).
      try {
        out = this.template.execute(unstructuredTemplateData(obj, meta), { missingKeyError: true });
      } catch (second) {
        if (!(second instanceof TemplateError)) throw second;
        throw new TemplateExecutionError(
          this.flag,
          `failed to apply template on ${meta.kind} ${meta.namespace}/${meta.name}: ${first.message} (unstructured retry also failed: ${second.message})`,
          { cause: second },
        );
      }
    }
    const names = new Set<string>();
    for (const part of out.split(',')) {
      const name = part.trim().replace(/\.$/, '');
      if (name !== '') names.add(name);
    }
    return [...names].sort();
  }
}

export class FqdnTemplate {
  /** Per-source copies, made once: translators ask for one per object. */
  private readonly bySource = new Map<string, FqdnTemplate>();

  private constructor(
    private readonly fqdn: FlagTemplate | undefined,
    private readonly target: FlagTemplate | undefined,
    private readonly fqdnTarget: FlagTemplate | undefined,
  ) {}

  /** `--fqdn-template` alone (tests, older callers). */
  static compile(fqdn: string | readonly string[]): FqdnTemplate {
    return FqdnTemplate.fromFlags({ fqdn: typeof fqdn === 'string' ? [fqdn] : fqdn }) ?? new FqdnTemplate(undefined, undefined, undefined);
  }

  /** The compiled flags, or undefined when none is set; throws ConfigError naming the flag on a bad template. */
  static fromFlags(flags: TemplateFlags): FqdnTemplate | undefined {
    const fqdn = FlagTemplate.compile(FQDN_TEMPLATE_FLAG, flags.fqdn ?? [], '');
    const target = FlagTemplate.compile(TARGET_TEMPLATE_FLAG, flags.target ?? [], '');
    const fqdnTarget = FlagTemplate.compile(FQDN_TARGET_TEMPLATE_FLAG, flags.fqdnTarget ?? [], '');
    if (fqdn === undefined && target === undefined && fqdnTarget === undefined) return undefined;
    return new FqdnTemplate(fqdn, target, fqdnTarget);
  }

  /** The same templates with `isSource` answering for `source` (an external-dns source name such as `service`). */
  withSource(source: string): FqdnTemplate {
    let scoped = this.bySource.get(source);
    if (scoped === undefined) {
      scoped = new FqdnTemplate(this.fqdn?.withSource(source), this.target?.withSource(source), this.fqdnTarget?.withSource(source));
      this.bySource.set(source, scoped);
    }
    return scoped;
  }

  /** Whether `--fqdn-template` is set (external-dns's IsConfigured). */
  get hasFqdn(): boolean {
    return this.fqdn !== undefined;
  }

  /** Whether a template can produce names (`--fqdn-template` or `--fqdn-target-template`). */
  get hasDnsNameTemplate(): boolean {
    return this.fqdn !== undefined || this.fqdnTarget !== undefined;
  }

  /** `--fqdn-template`'s hostnames for one object (none when it is not set). */
  execute(obj: JsonRecord, meta: ObjectMeta, shape?: TemplateShape): string[] {
    return this.fqdn?.execute(obj, meta, shape) ?? [];
  }

  /** `--target-template`'s targets (none when it is not set). */
  targets(obj: JsonRecord, meta: ObjectMeta, shape?: TemplateShape): string[] {
    return this.target?.execute(obj, meta, shape) ?? [];
  }

  /** `--fqdn-target-template`'s `host:target` pairs; entries without ':' or with an empty side are skipped. */
  hostTargets(obj: JsonRecord, meta: ObjectMeta, shape?: TemplateShape): HostTarget[] {
    const pairs: HostTarget[] = [];
    for (const entry of this.fqdnTarget?.execute(obj, meta, shape) ?? []) {
      const colon = entry.indexOf(':');
      if (colon === -1) continue;
      const host = entry.slice(0, colon).trim();
      const target = entry.slice(colon + 1).trim();
      if (host !== '' && target !== '') pairs.push({ host, target });
    }
    return pairs;
  }
}
