/**
 * `--fqdn-template`: a small subset of Go's text/template, enough for the templates people write
 * for external-dns: field references (`.Name`, `.Namespace`, `.Kind`, `.Labels.app`,
 * `.Spec.Type`), `index .Labels "key"`, pipelines, and the string helpers external-dns registers
 * (toLower, trim, trimPrefix, trimSuffix, replace). Anything else (if, range, with, variables, …)
 * is rejected when the template is compiled, so a typo fails at start-up rather than at sync time.
 */
import { ConfigError } from '../../errors.ts';
import { asRecord } from './object.ts';
import type { JsonRecord, ObjectMeta } from './object.ts';

export const FQDN_TEMPLATE_FLAG = '--fqdn-template';

type Operand = { kind: 'field'; path: string[] } | { kind: 'string'; value: string };
interface Command {
  fn: string | undefined;
  args: Operand[];
}
type Part = { kind: 'text'; text: string } | { kind: 'action'; pipeline: Command[] };
type Value = unknown;

interface FnSpec {
  arity: number | 'variadic';
  call: (args: Value[]) => Value;
}

const KEYWORDS: ReadonlySet<string> = new Set([
  'if',
  'else',
  'end',
  'range',
  'with',
  'define',
  'template',
  'block',
  'break',
  'continue',
  'nil',
  'true',
  'false',
  'len',
  'and',
  'or',
  'not',
  'eq',
  'ne',
  'printf',
  'print',
  'println',
]);

const FUNCTIONS: Readonly<Record<string, FnSpec>> = {
  index: { arity: 'variadic', call: ([base, ...keys]) => keys.reduce((cur, key) => asRecord(cur)?.[text(key)], base) },
  toLower: { arity: 1, call: ([s]) => text(s).toLowerCase() },
  trim: { arity: 1, call: ([s]) => text(s).trim() },
  trimPrefix: { arity: 2, call: ([prefix, s]) => (text(s).startsWith(text(prefix)) ? text(s).slice(text(prefix).length) : text(s)) },
  trimSuffix: {
    arity: 2,
    call: ([suffix, s]) => (text(suffix) !== '' && text(s).endsWith(text(suffix)) ? text(s).slice(0, -text(suffix).length) : text(s)),
  },
  replace: { arity: 3, call: ([from, to, s]) => text(s).replaceAll(text(from), text(to)) },
};

// Metadata fields Go reaches through the embedded ObjectMeta/TypeMeta of every API object.
const META_FIELDS: ReadonlySet<string> = new Set([
  'Name',
  'Namespace',
  'Labels',
  'Annotations',
  'UID',
  'GenerateName',
  'ResourceVersion',
  'Generation',
  'CreationTimestamp',
]);

export class FqdnTemplate {
  readonly source: string;
  private readonly parts: readonly Part[];

  private constructor(source: string, parts: readonly Part[]) {
    this.source = source;
    this.parts = parts;
  }

  /** Compiles a template; throws ConfigError naming `--fqdn-template` on unsupported syntax. */
  static compile(source: string): FqdnTemplate {
    return new FqdnTemplate(source, parseTemplate(source));
  }

  /** Hostnames for one object: the output split on commas, trimmed, without trailing dots or empties. */
  execute(obj: JsonRecord, meta: ObjectMeta): string[] {
    const out = this.parts.map((part) => (part.kind === 'text' ? part.text : render(runPipeline(part.pipeline, obj, meta)))).join('');
    return out
      .split(',')
      .map((h) => h.trim().replace(/\.$/, ''))
      .filter((h) => h !== '');
  }
}

function fail(message: string): never {
  throw new ConfigError(`${FQDN_TEMPLATE_FLAG}: ${message}`, FQDN_TEMPLATE_FLAG);
}

function parseTemplate(source: string): Part[] {
  const parts: Part[] = [];
  let rest = source;
  let trimNextText = false;
  while (rest.length > 0) {
    const open = rest.indexOf('{{');
    let literal = open === -1 ? rest : rest.slice(0, open);
    if (trimNextText) literal = literal.trimStart();
    trimNextText = false;
    if (open === -1) {
      if (literal !== '') parts.push({ kind: 'text', text: literal });
      break;
    }
    const close = rest.indexOf('}}', open + 2);
    if (close === -1) fail(`unterminated action in ${JSON.stringify(source)}`);
    let body = rest.slice(open + 2, close);
    if (body.startsWith('-') && /^-\s/.test(body)) {
      literal = literal.trimEnd();
      body = body.slice(1);
    }
    if (/\s-$/.test(body)) {
      trimNextText = true;
      body = body.slice(0, -1);
    }
    if (literal !== '') parts.push({ kind: 'text', text: literal });
    const trimmed = body.trim();
    if (!(trimmed.startsWith('/*') && trimmed.endsWith('*/'))) parts.push({ kind: 'action', pipeline: parsePipeline(trimmed, source) });
    rest = rest.slice(close + 2);
  }
  return parts;
}

function parsePipeline(body: string, source: string): Command[] {
  const tokens = tokenizeAction(body, source);
  if (tokens.length === 0) fail(`empty action in ${JSON.stringify(source)}`);
  const commands: Command[] = [];
  let current: string[] = [];
  const flush = (): void => {
    if (current.length === 0) fail(`empty command in pipeline ${JSON.stringify(body)}`);
    commands.push(parseCommand(current, body, commands.length > 0));
    current = [];
  };
  for (const token of tokens) {
    if (token === '|') flush();
    else current.push(token);
  }
  flush();
  return commands;
}

function parseCommand(tokens: string[], body: string, piped: boolean): Command {
  const [head, ...rest] = tokens;
  if (head === undefined) return fail(`empty command in ${JSON.stringify(body)}`);
  if (/^[A-Za-z_]\w*$/.test(head)) {
    if (KEYWORDS.has(head) || FUNCTIONS[head] === undefined) {
      return fail(
        `unsupported ${KEYWORDS.has(head) ? 'keyword' : 'function'} "${head}" in {{${body}}}; supported: field references, ${Object.keys(FUNCTIONS).join(', ')}`,
      );
    }
    const spec = FUNCTIONS[head];
    const args = rest.map((t) => parseOperand(t, body));
    const count = args.length + (piped ? 1 : 0);
    if (spec.arity === 'variadic' ? count < 2 : count !== spec.arity)
      fail(`${head} takes ${spec.arity === 'variadic' ? 'at least 2' : spec.arity} arguments in {{${body}}}`);
    return { fn: head, args };
  }
  if (rest.length > 0 || piped) fail(`unexpected ${JSON.stringify(rest[0] ?? head)} in {{${body}}}`);
  return { fn: undefined, args: [parseOperand(head, body)] };
}

function parseOperand(token: string, body: string): Operand {
  if (token.startsWith('"')) return { kind: 'string', value: JSON.parse(token) as string };
  if (token.startsWith('`')) return { kind: 'string', value: token.slice(1, -1) };
  if (token === '.') return { kind: 'field', path: [] };
  if (/^(\.[A-Za-z_][\w-]*)+$/.test(token)) return { kind: 'field', path: token.slice(1).split('.') };
  return fail(`unsupported operand ${JSON.stringify(token)} in {{${body}}}`);
}

function tokenizeAction(body: string, source: string): string[] {
  const tokens: string[] = [];
  let i = 0;
  while (i < body.length) {
    const c = body[i] ?? '';
    if (/\s/.test(c)) {
      i += 1;
      continue;
    }
    if (c === '|') {
      tokens.push('|');
      i += 1;
      continue;
    }
    if (c === '"' || c === '`') {
      let j = i + 1;
      while (j < body.length && body[j] !== c) j += c === '"' && body[j] === '\\' ? 2 : 1;
      if (j >= body.length) fail(`unterminated string in ${JSON.stringify(source)}`);
      const literal = body.slice(i, j + 1);
      if (c === '"') {
        try {
          JSON.parse(literal);
        } catch {
          fail(`bad string literal ${literal} in ${JSON.stringify(source)}`);
        }
      }
      tokens.push(literal);
      i = j + 1;
      continue;
    }
    if ('()$:=,'.includes(c)) fail(`unsupported syntax ${JSON.stringify(c)} in {{${body}}} (variables, parentheses and assignments are not supported)`);
    let j = i;
    while (j < body.length && !/[\s|"`()]/.test(body[j] ?? '')) j += 1;
    tokens.push(body.slice(i, j));
    i = j;
  }
  return tokens;
}

function runPipeline(pipeline: readonly Command[], obj: JsonRecord, meta: ObjectMeta): Value {
  let previous: Value;
  pipeline.forEach((command, i) => {
    const args = command.args.map((a) => (a.kind === 'string' ? a.value : resolveField(a.path, obj, meta)));
    if (i > 0) args.push(previous);
    previous = command.fn === undefined ? args[0] : (FUNCTIONS[command.fn]?.call(args) ?? '');
  });
  return previous;
}

function resolveField(fieldPath: readonly string[], obj: JsonRecord, meta: ObjectMeta): Value {
  if (fieldPath.length === 0) return obj;
  const [first, ...rest] = fieldPath;
  let current: Value;
  if (first === 'Name') current = meta.name;
  else if (first === 'Namespace') current = meta.namespace;
  else if (first === 'Kind') current = meta.kind;
  else if (first === 'Labels') current = meta.labels;
  else if (first === 'Annotations') current = meta.annotations;
  else if (first === 'ObjectMeta')
    current = { ...asRecord(obj['metadata']), name: meta.name, namespace: meta.namespace, labels: meta.labels, annotations: meta.annotations };
  else if (first === 'TypeMeta') current = obj;
  else if (first !== undefined && META_FIELDS.has(first)) current = asRecord(obj['metadata'])?.[jsonName(first)];
  else current = lookup(obj, first ?? '');
  for (const key of rest) current = lookup(current, key);
  return current;
}

/** Exact key first (label and annotation maps), then the JSON spelling of a Go field name. */
function lookup(value: Value, key: string): Value {
  const rec = asRecord(value);
  if (rec === undefined) return undefined;
  return Object.hasOwn(rec, key) ? rec[key] : rec[jsonName(key)];
}

/** `Name` → `name`, `ClusterIP` → `clusterIP`, `APIVersion` → `apiVersion`, `IP` → `ip`. */
function jsonName(goName: string): string {
  const run = /^[A-Z]+/.exec(goName)?.[0].length ?? 0;
  if (run === 0) return goName;
  if (run === goName.length) return goName.toLowerCase();
  const lower = run === 1 ? 1 : run - 1;
  return goName.slice(0, lower).toLowerCase() + goName.slice(lower);
}

function text(value: Value): string {
  return render(value);
}

function render(value: Value): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map(render).join(' ');
  return JSON.stringify(value);
}
