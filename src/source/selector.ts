/**
 * Kubernetes label-selector syntax (`a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`,
 * `a>1`, `a<1`; comma means AND), used by `--label-filter` against labels and by
 * `--annotation-filter` against annotations, so filters written for external-dns keep working.
 */
import { ConfigError } from '../errors.ts';

export type SelectorOperator = '=' | '!=' | 'in' | 'notin' | 'exists' | '!' | '>' | '<';

export interface Requirement {
  key: string;
  operator: SelectorOperator;
  values: readonly string[];
}

type Token =
  | { kind: 'word'; text: string; at: number }
  | { kind: 'op'; text: '=' | '==' | '!=' | '!' | '>' | '<'; at: number }
  | { kind: 'punct'; text: ',' | '(' | ')'; at: number };

// Kubernetes qualified names: optional DNS-subdomain prefix, then a name of at most 63 characters.
const KEY_NAME = /^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/;
const KEY_PREFIX = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/;
const VALUE = /^([A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?)?$/;

export class Selector {
  readonly requirements: readonly Requirement[];

  constructor(requirements: readonly Requirement[]) {
    this.requirements = requirements;
  }

  /** An empty selector matches everything, as in Kubernetes. */
  isEmpty(): boolean {
    return this.requirements.length === 0;
  }

  matches(set: Readonly<Record<string, string>> | undefined): boolean {
    const values = set ?? {};
    return this.requirements.every((r) => matchRequirement(r, values));
  }

  toString(): string {
    return this.requirements.map(formatRequirement).join(',');
  }
}

/** Parses a selector; `flag` names the command-line flag in the ConfigError on bad input. */
export function parseSelector(text: string, flag: string): Selector {
  const fail = (message: string): never => {
    throw new ConfigError(`${flag}: invalid selector ${JSON.stringify(text)}: ${message}`, flag);
  };
  const tokens = tokenize(text, fail);
  const requirements: Requirement[] = [];
  let i = 0;
  const peek = (): Token | undefined => tokens[i];
  const next = (): Token | undefined => tokens[i++];

  while (i < tokens.length) {
    requirements.push(parseRequirement(peek, next, fail));
    const sep = next();
    if (sep === undefined) break;
    if (sep.kind !== 'punct' || sep.text !== ',') fail(`expected "," at position ${sep.at}`);
    if (peek() === undefined) fail('trailing ","');
  }
  return new Selector(requirements);
}

function parseRequirement(peek: () => Token | undefined, next: () => Token | undefined, fail: (m: string) => never): Requirement {
  const first = next();
  if (first === undefined) return fail('unexpected end');
  if (first.kind === 'op' && first.text === '!') {
    const key = next();
    if (key?.kind !== 'word') return fail(`expected a key after "!" at position ${first.at}`);
    checkKey(key.text, fail);
    return { key: key.text, operator: '!', values: [] };
  }
  if (first.kind !== 'word') return fail(`expected a key at position ${first.at}`);
  const key = first.text;
  checkKey(key, fail);
  const op = peek();
  if (op === undefined || (op.kind === 'punct' && op.text === ',')) return { key, operator: 'exists', values: [] };
  next();
  if (op.kind === 'op') {
    if (op.text === '!') return fail(`unexpected "!" at position ${op.at}`);
    const value = peek();
    let text = '';
    if (value?.kind === 'word') {
      text = value.text;
      next();
    }
    checkValue(text, fail);
    if ((op.text === '>' || op.text === '<') && !/^-?\d+$/.test(text)) return fail(`"${op.text}" needs an integer value`);
    const operator: SelectorOperator = op.text === '==' ? '=' : op.text;
    return { key, operator, values: [text] };
  }
  if (op.kind === 'word' && (op.text === 'in' || op.text === 'notin')) {
    const open = next();
    if (open?.kind !== 'punct' || open.text !== '(') return fail(`expected "(" after "${op.text}"`);
    const values: string[] = [];
    for (;;) {
      const t = next();
      if (t === undefined) return fail('missing ")"');
      if (t.kind === 'word') {
        checkValue(t.text, fail);
        values.push(t.text);
        const after = next();
        if (after?.kind === 'punct' && after.text === ')') break;
        if (after?.kind !== 'punct' || after.text !== ',') return fail(`expected "," or ")" in the value list of ${key}`);
        continue;
      }
      if (t.kind === 'punct' && t.text === ')' && values.length === 0) return fail(`empty value list for ${key}`);
      return fail(`unexpected ${JSON.stringify(t.text)} in the value list of ${key}`);
    }
    return { key, operator: op.text, values };
  }
  return fail(`unknown operator ${JSON.stringify(op.text)} after ${key}`);
}

function tokenize(text: string, fail: (m: string) => never): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] ?? '';
    if (/\s/.test(c)) {
      i += 1;
    } else if (c === ',' || c === '(' || c === ')') {
      tokens.push({ kind: 'punct', text: c, at: i });
      i += 1;
    } else if (c === '=' || c === '!' || c === '<' || c === '>') {
      const two = text.slice(i, i + 2);
      if (two === '==' || two === '!=') {
        tokens.push({ kind: 'op', text: two, at: i });
        i += 2;
      } else {
        tokens.push({ kind: 'op', text: c, at: i });
        i += 1;
      }
    } else {
      const start = i;
      while (i < text.length && !/[\s,()=!<>]/.test(text[i] ?? '')) i += 1;
      tokens.push({ kind: 'word', text: text.slice(start, i), at: start });
    }
  }
  if (tokens.length === 0 && text.trim() !== '') fail('empty');
  return tokens;
}

function checkKey(key: string, fail: (m: string) => never): void {
  const slash = key.lastIndexOf('/');
  const name = slash === -1 ? key : key.slice(slash + 1);
  const prefix = slash === -1 ? undefined : key.slice(0, slash);
  if (!KEY_NAME.test(name) || (prefix !== undefined && !KEY_PREFIX.test(prefix))) fail(`invalid key ${JSON.stringify(key)}`);
}

function checkValue(value: string, fail: (m: string) => never): void {
  if (!VALUE.test(value)) fail(`invalid value ${JSON.stringify(value)}`);
}

function matchRequirement(r: Requirement, set: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(set, r.key);
  const value = has ? set[r.key] : undefined;
  switch (r.operator) {
    case 'exists':
      return has;
    case '!':
      return !has;
    case '=':
    case 'in':
      return value !== undefined && r.values.includes(value);
    case '!=':
    case 'notin':
      return value === undefined || !r.values.includes(value);
    case '>':
    case '<': {
      if (value === undefined || !/^-?\d+$/.test(value)) return false;
      const a = Number(value);
      const b = Number(r.values[0]);
      return r.operator === '>' ? a > b : a < b;
    }
  }
}

function formatRequirement(r: Requirement): string {
  switch (r.operator) {
    case 'exists':
      return r.key;
    case '!':
      return `!${r.key}`;
    case 'in':
    case 'notin':
      return `${r.key} ${r.operator} (${r.values.join(',')})`;
    default:
      return `${r.key}${r.operator}${r.values[0] ?? ''}`;
  }
}
