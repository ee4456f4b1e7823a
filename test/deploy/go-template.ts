/**
 * A small Go text/template interpreter with the Helm functions the chart uses, so the chart can be
 * rendered and checked offline (no helm binary here). It is deliberately strict where Helm is:
 * a field of a missing value, an unknown function or an unclosed block is an error, so a template
 * bug fails the test instead of rendering quietly.
 */
import { stringify } from 'yaml';

type Operand =
  | { k: 'field'; base: string; path: string[] } // base: '.' (dot), '$' (root) or '$name'
  | { k: 'lit'; v: unknown }
  | { k: 'ident'; name: string }
  | { k: 'pipe'; p: Pipeline };
type Command = Operand[];
type Pipeline = { decl: string[]; cmds: Command[] };

type Node =
  | { t: 'text'; text: string }
  | { t: 'out'; p: Pipeline }
  | { t: 'if'; branches: { cond: Pipeline; body: Node[] }[]; otherwise: Node[] }
  | { t: 'range'; p: Pipeline; body: Node[]; otherwise: Node[] }
  | { t: 'with'; p: Pipeline; body: Node[]; otherwise: Node[] }
  | { t: 'template'; name: string; p: Pipeline | undefined };

type Func = (...args: unknown[]) => unknown;

export class TemplateError extends Error {}

/** Parsed templates sharing one set of `define`d names, as Helm's template set does. */
export class TemplateSet {
  private readonly defines = new Map<string, Node[]>();
  private readonly files = new Map<string, Node[]>();

  add(name: string, source: string): void {
    this.files.set(name, parse(source, name, this.defines));
  }

  render(name: string, data: unknown): string {
    const nodes = this.files.get(name);
    if (nodes === undefined) throw new TemplateError(`no template file ${name}`);
    return this.exec(nodes, { dot: data, root: data, vars: new Map() });
  }

  private include(name: string, data: unknown): string {
    const nodes = this.defines.get(name);
    if (nodes === undefined) throw new TemplateError(`no template named ${JSON.stringify(name)}`);
    return this.exec(nodes, { dot: data, root: data, vars: new Map() });
  }

  private exec(nodes: Node[], scope: Scope): string {
    let out = '';
    for (const node of nodes) {
      switch (node.t) {
        case 'text':
          out += node.text;
          break;
        case 'out': {
          const v = this.pipeline(node.p, scope);
          if (node.p.decl.length === 0) out += printValue(v);
          break;
        }
        case 'if': {
          const branch = node.branches.find((b) => truthy(this.pipeline(b.cond, scope)));
          out += this.exec(branch?.body ?? node.otherwise, child(scope));
          break;
        }
        case 'with': {
          const v = this.pipeline(node.p, scope);
          out += truthy(v) ? this.exec(node.body, { ...child(scope), dot: v }) : this.exec(node.otherwise, child(scope));
          break;
        }
        case 'range': {
          const v = this.evalCmds(node.p.cmds, scope);
          const entries: [unknown, unknown][] = Array.isArray(v)
            ? v.map((x, i) => [i, x])
            : isMap(v)
              ? Object.keys(v)
                  .sort()
                  .map((k) => [k, v[k]])
              : v === undefined || v === null
                ? []
                : fail(`range over ${typeof v}`);
          if (entries.length === 0) out += this.exec(node.otherwise, child(scope));
          for (const [key, item] of entries) {
            const inner = { ...child(scope), dot: item };
            if (node.p.decl.length === 1) inner.vars.set(node.p.decl[0] ?? '', item);
            if (node.p.decl.length === 2) {
              inner.vars.set(node.p.decl[0] ?? '', key);
              inner.vars.set(node.p.decl[1] ?? '', item);
            }
            out += this.exec(node.body, inner);
          }
          break;
        }
        case 'template':
          out += this.include(node.name, node.p === undefined ? undefined : this.pipeline(node.p, scope));
          break;
      }
    }
    return out;
  }

  private pipeline(p: Pipeline, scope: Scope): unknown {
    const v = this.evalCmds(p.cmds, scope);
    for (const name of p.decl) scope.vars.set(name, v);
    return v;
  }

  private evalCmds(cmds: Command[], scope: Scope): unknown {
    let prev: unknown = undefined;
    cmds.forEach((cmd, i) => {
      prev = this.command(cmd, scope, i > 0, prev);
    });
    return prev;
  }

  private command(cmd: Command, scope: Scope, piped: boolean, prev: unknown): unknown {
    const [head, ...rest] = cmd;
    if (head === undefined) throw new TemplateError('empty command');
    if (head.k !== 'ident') {
      if (rest.length > 0 || piped) throw new TemplateError('only a function can take arguments');
      return this.operand(head, scope);
    }
    const args = rest.map((a) => this.operand(a, scope));
    if (piped) args.push(prev);
    return this.call(head.name, args);
  }

  private operand(op: Operand, scope: Scope): unknown {
    switch (op.k) {
      case 'lit':
        return op.v;
      case 'pipe':
        return this.evalCmds(op.p.cmds, scope);
      case 'ident':
        return this.call(op.name, []);
      case 'field': {
        let v: unknown;
        if (op.base === '.') v = scope.dot;
        else if (op.base === '$') v = scope.root;
        else if (scope.vars.has(op.base)) v = scope.vars.get(op.base);
        else throw new TemplateError(`undefined variable ${op.base}`);
        for (const [i, key] of op.path.entries()) {
          if (v === undefined || v === null) throw new TemplateError(`nil pointer evaluating ${op.base}.${op.path.slice(0, i + 1).join('.')}`);
          v = isMap(v) ? v[key] : fail(`can't evaluate field ${key} in ${typeof v}`);
        }
        return v;
      }
    }
  }

  private call(name: string, args: unknown[]): unknown {
    if (name === 'include') return this.include(String(args[0]), args[1]);
    const fn = FUNCS[name];
    if (fn === undefined) throw new TemplateError(`function ${JSON.stringify(name)} not defined`);
    return fn(...args);
  }
}

interface Scope {
  dot: unknown;
  root: unknown;
  vars: Map<string, unknown>;
}

function child(scope: Scope): Scope {
  return { ...scope, vars: new Map(scope.vars) };
}

function fail(message: string): never {
  throw new TemplateError(message);
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function truthy(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isMap(v)) return Object.keys(v).length > 0;
  return true;
}

function printValue(v: unknown): string {
  // Helm turns Go's "<no value>" into an empty string.
  if (v === undefined || v === null) return '';
  if (typeof v === 'object') throw new TemplateError(`printing a ${Array.isArray(v) ? 'list' : 'map'} directly; use toYaml`);
  return String(v);
}

function goString(v: unknown): string {
  return v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
}

function printf(format: unknown, ...args: unknown[]): string {
  let i = 0;
  return String(format).replace(/%([svdq%])/g, (_m, verb: string) => {
    if (verb === '%') return '%';
    const a = args[i++];
    return verb === 'q' ? JSON.stringify(goString(a)) : goString(a);
  });
}

const FUNCS: Readonly<Record<string, Func>> = {
  default: (d, v) => (truthy(v) ? v : d),
  empty: (v) => !truthy(v),
  quote: (...xs) => xs.map((x) => JSON.stringify(goString(x))).join(' '),
  squote: (...xs) => xs.map((x) => `'${goString(x)}'`).join(' '),
  printf: (f, ...xs) => printf(f, ...xs),
  toYaml: (v) => (v === undefined || v === null ? 'null' : stringify(v).replace(/\n$/, '')),
  toString: (v: unknown) => goString(v),
  indent: (n, s) =>
    goString(s)
      .split('\n')
      .map((l) => ' '.repeat(Number(n)) + l)
      .join('\n'),
  nindent: (n, s) =>
    '\n' +
    goString(s)
      .split('\n')
      .map((l) => ' '.repeat(Number(n)) + l)
      .join('\n'),
  trunc: (n, s) => goString(s).slice(0, Number(n)),
  trimSuffix: (suffix, s) => (goString(s).endsWith(goString(suffix)) && goString(suffix) !== '' ? goString(s).slice(0, -goString(suffix).length) : goString(s)),
  trim: (s) => goString(s).trim(),
  lower: (s) => goString(s).toLowerCase(),
  upper: (s) => goString(s).toUpperCase(),
  contains: (sub, s) => goString(s).includes(goString(sub)),
  join: (sep, list) => (Array.isArray(list) ? list.map(goString).join(goString(sep)) : goString(list)),
  has: (item, list) => Array.isArray(list) && list.includes(item),
  eq: (a, ...bs) => bs.some((b) => a === b),
  ne: (a, b) => a !== b,
  gt: (a, b) => Number(a) > Number(b),
  int: (v) => Math.trunc(Number(v)),
  not: (v) => !truthy(v),
  and: (...xs) => xs.find((x) => !truthy(x)) ?? xs[xs.length - 1],
  or: (...xs) => xs.find((x) => truthy(x)) ?? xs[xs.length - 1],
  required: (message, v) => (v === undefined || v === null || v === '' ? fail(String(message)) : v),
  fail: (message) => fail(String(message)),
};

// ---- parsing ----

type Token = { k: 'str'; v: string } | { k: 'num'; v: number } | { k: 'word'; v: string } | { k: 'punct'; v: string };

function tokenize(src: string, where: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i] ?? '';
    if (/\s/.test(c)) {
      i++;
    } else if (c === '"') {
      const m = /^"(?:[^"\\]|\\.)*"/.exec(src.slice(i));
      if (m === null) throw new TemplateError(`${where}: unterminated string`);
      tokens.push({ k: 'str', v: JSON.parse(m[0]) as string });
      i += m[0].length;
    } else if (c === '`') {
      const end = src.indexOf('`', i + 1);
      if (end === -1) throw new TemplateError(`${where}: unterminated raw string`);
      tokens.push({ k: 'str', v: src.slice(i + 1, end) });
      i = end + 1;
    } else if (src.startsWith(':=', i)) {
      tokens.push({ k: 'punct', v: ':=' });
      i += 2;
    } else if ('()|,='.includes(c)) {
      tokens.push({ k: 'punct', v: c });
      i++;
    } else {
      const m = /^-?\d+(?:\.\d+)?(?![\w.])/.exec(src.slice(i)) ?? /^[$.\w-]+/.exec(src.slice(i));
      if (m === null) throw new TemplateError(`${where}: unexpected ${JSON.stringify(c)}`);
      tokens.push(/^-?\d/.test(m[0]) ? { k: 'num', v: Number(m[0]) } : { k: 'word', v: m[0] });
      i += m[0].length;
    }
  }
  return tokens;
}

class ActionParser {
  private pos = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly where: string,
  ) {}

  done(): boolean {
    return this.pos >= this.tokens.length;
  }

  peekWord(): string | undefined {
    const t = this.tokens[this.pos];
    return t?.k === 'word' ? t.v : undefined;
  }

  next(): Token | undefined {
    return this.tokens[this.pos++];
  }

  pipeline(): Pipeline {
    const decl: string[] = [];
    // `$x :=` or `$k, $v :=`
    const save = this.pos;
    const names: string[] = [];
    for (;;) {
      const t = this.tokens[this.pos];
      if (t?.k !== 'word' || !/^\$\w+$/.test(t.v)) break;
      names.push(t.v);
      this.pos++;
      const sep = this.tokens[this.pos];
      if (sep?.k === 'punct' && sep.v === ',') {
        this.pos++;
        continue;
      }
      if (sep?.k === 'punct' && (sep.v === ':=' || sep.v === '=')) {
        this.pos++;
        decl.push(...names);
      }
      break;
    }
    if (decl.length === 0) this.pos = save;
    const cmds: Command[] = [this.command()];
    while (this.tokens[this.pos]?.k === 'punct' && this.tokens[this.pos]?.v === '|') {
      this.pos++;
      cmds.push(this.command());
    }
    return { decl, cmds };
  }

  private command(): Command {
    const ops: Operand[] = [];
    for (;;) {
      const t = this.tokens[this.pos];
      if (t === undefined || (t.k === 'punct' && (t.v === '|' || t.v === ')'))) break;
      this.pos++;
      if (t.k === 'str' || t.k === 'num') ops.push({ k: 'lit', v: t.v });
      else if (t.k === 'punct' && t.v === '(') {
        const p = this.pipeline();
        const close = this.next();
        if (close?.k !== 'punct' || close.v !== ')') throw new TemplateError(`${this.where}: missing )`);
        ops.push({ k: 'pipe', p });
      } else if (t.k === 'word') ops.push(wordOperand(t.v));
      else throw new TemplateError(`${this.where}: unexpected ${t.v}`);
    }
    if (ops.length === 0) throw new TemplateError(`${this.where}: missing value`);
    return ops;
  }
}

function wordOperand(w: string): Operand {
  if (w === 'true' || w === 'false') return { k: 'lit', v: w === 'true' };
  if (w === 'nil') return { k: 'lit', v: null };
  if (w === '.') return { k: 'field', base: '.', path: [] };
  if (w.startsWith('.')) return { k: 'field', base: '.', path: w.slice(1).split('.') };
  if (w.startsWith('$')) {
    const [base = '$', ...path] = w.split('.');
    return { k: 'field', base, path };
  }
  return { k: 'ident', name: w };
}

type Frame = { kind: 'root' | 'if' | 'range' | 'with' | 'define'; nodes: Node[]; node?: Node; name?: string };

function parse(source: string, file: string, defines: Map<string, Node[]>): Node[] {
  const root: Frame = { kind: 'root', nodes: [] };
  const stack: Frame[] = [root];
  const top = (): Frame => stack[stack.length - 1] ?? root;
  let i = 0;
  let trimNext = false;
  while (i < source.length) {
    const open = source.indexOf('{{', i);
    let text = source.slice(i, open === -1 ? source.length : open);
    if (trimNext) text = text.replace(/^\s+/, '');
    if (open === -1) {
      if (text !== '') top().nodes.push({ t: 'text', text });
      break;
    }
    const trimLeft = /^\{\{-\s/.test(source.slice(open, open + 4));
    if (trimLeft) text = text.replace(/\s+$/, '');
    if (text !== '') top().nodes.push({ t: 'text', text });
    const inner = open + (trimLeft ? 3 : 2);
    const isComment = source.slice(inner).trimStart().startsWith('/*');
    const close = isComment ? commentClose(source, inner) : findClose(source, inner);
    if (close === -1) throw new TemplateError(`${file}: unclosed action`);
    const trimRight = /\s-$/.test(source.slice(close - 2, close));
    const body = source.slice(inner, trimRight ? close - 2 : close).trim();
    const line = source.slice(0, open).split('\n').length;
    const where = `${file}:${line}`;
    i = close + 2;
    trimNext = trimRight;
    if (body.startsWith('/*')) continue;
    const p = new ActionParser(tokenize(body, where), where);
    const word = p.peekWord();
    if (word === 'end') {
      const frame = stack.pop();
      if (frame === undefined || frame.kind === 'root') throw new TemplateError(`${where}: end without a block`);
      if (frame.kind === 'define') defines.set(frame.name ?? '', frame.nodes);
      continue;
    }
    if (word === 'else') {
      p.next();
      const frame = top();
      const node = frame.node;
      if (node === undefined) throw new TemplateError(`${where}: else outside a block`);
      if (p.peekWord() === 'if' && node.t === 'if') {
        p.next();
        const branch = { cond: p.pipeline(), body: [] };
        node.branches.push(branch);
        frame.nodes = branch.body;
      } else if (node.t === 'if' || node.t === 'range' || node.t === 'with') {
        frame.nodes = node.otherwise;
      }
      continue;
    }
    if (word === 'if' || word === 'range' || word === 'with') {
      p.next();
      const pipe = p.pipeline();
      const body: Node[] = [];
      const node: Node = word === 'if' ? { t: 'if', branches: [{ cond: pipe, body }], otherwise: [] } : { t: word, p: pipe, body, otherwise: [] };
      top().nodes.push(node);
      stack.push({ kind: word, nodes: body, node });
      continue;
    }
    if (word === 'define') {
      p.next();
      const name = p.next();
      if (name?.k !== 'str') throw new TemplateError(`${where}: define needs a name`);
      stack.push({ kind: 'define', nodes: [], name: name.v });
      continue;
    }
    if (word === 'template') {
      p.next();
      const name = p.next();
      if (name?.k !== 'str') throw new TemplateError(`${where}: template needs a name`);
      top().nodes.push({ t: 'template', name: name.v, p: p.done() ? undefined : p.pipeline() });
      continue;
    }
    const pipe = p.pipeline();
    if (!p.done()) throw new TemplateError(`${where}: unexpected text after the pipeline`);
    top().nodes.push({ t: 'out', p: pipe });
  }
  if (stack.length > 1) throw new TemplateError(`${file}: unclosed ${top().kind}`);
  return root.nodes;
}

/** The `}}` right after a comment's `*\/` (Go allows nothing else between them but a trim marker). */
function commentClose(source: string, from: number): number {
  const end = source.indexOf('*/', from);
  if (end === -1) return -1;
  const m = /^(\s-)?\}\}/.exec(source.slice(end + 2));
  return m === null ? -1 : end + 2 + m[0].length - 2;
}

/** The `}}` that ends an action, skipping quoted strings. */
function findClose(source: string, from: number): number {
  let quote = '';
  for (let i = from; i < source.length - 1; i++) {
    const c = source[i];
    if (quote !== '') {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === '`') quote = c;
    else if (c === '}' && source[i + 1] === '}') return i;
  }
  return -1;
}
