/**
 * The parser: tokens → trees, one per template name (`define` and `block` add named ones). It
 * checks what Go's parser checks before execution: functions exist, variables are declared,
 * `break`/`continue` sit inside `range`, every block is closed, no template is defined twice.
 */
import type { Arg, Command, Node, Pipe } from './ast.ts';
import { LexError, lex } from './lex.ts';
import type { Token } from './lex.ts';
import { positionOf, TemplateError } from './position.ts';

export interface ParseOptions {
  /** The template's name, as Go's error messages show it. */
  name: string;
  /** Names of the functions the template may call (builtins included). */
  functions: ReadonlySet<string>;
}

/** The tree of every template name in one text; the main one is `trees.get(name)`. */
export type TreeSet = Map<string, Node[]>;

export function parse(text: string, options: ParseOptions): TreeSet {
  let tokens: Token[];
  try {
    tokens = lex(text);
  } catch (err) {
    if (err instanceof LexError) throw new TemplateError(options.name, positionOf(text, err.pos), err.message);
    throw err;
  }
  return new Parser(text, tokens, options).parseAll();
}

type Stop = 'end' | 'else' | 'eof';

class Parser {
  private i = 0;
  private readonly vars: string[][] = [['$']];
  private rangeDepth = 0;
  private readonly trees: TreeSet = new Map();

  constructor(
    private readonly text: string,
    private readonly tokens: readonly Token[],
    private readonly options: ParseOptions,
  ) {}

  parseAll(): TreeSet {
    const { list, stop, at } = this.itemList(true);
    if (stop !== 'eof') this.fail(at, `unexpected {{${stop}}}`);
    this.addTree(this.options.name, list, 0);
    return this.trees;
  }

  private fail(pos: number, message: string): never {
    throw new TemplateError(this.options.name, positionOf(this.text, pos), message);
  }

  private peek(): Token {
    return this.tokens[this.i] ?? { kind: 'eof', value: '', pos: this.text.length };
  }

  private next(): Token {
    const t = this.peek();
    this.i += 1;
    return t;
  }

  private nextNonSpace(): Token {
    let t = this.next();
    while (t.kind === 'space') t = this.next();
    return t;
  }

  private peekNonSpace(): Token {
    const save = this.i;
    const t = this.nextNonSpace();
    this.i = save;
    return t;
  }

  private expect(kind: Token['kind'], context: string): Token {
    const t = this.nextNonSpace();
    if (t.kind !== kind) this.unexpected(t, context);
    return t;
  }

  private unexpected(t: Token, context: string): never {
    if (t.kind === 'eof') this.fail(t.pos, `unexpected EOF in ${context}`);
    if (t.kind === 'right') this.fail(t.pos, `unexpected "}}" in ${context}`);
    return this.fail(t.pos, `unexpected ${JSON.stringify(t.value)} in ${context}`);
  }

  private addTree(name: string, list: Node[], pos: number): void {
    const existing = this.trees.get(name);
    if (existing !== undefined && !isEmpty(existing) && !isEmpty(list)) this.fail(pos, `template: multiple definition of template ${JSON.stringify(name)}`);
    if (existing === undefined || isEmpty(existing)) this.trees.set(name, list);
  }

  /** Items up to `{{end}}`, `{{else}}` or the end of input (which token stopped it, and where). */
  private itemList(top: boolean): { list: Node[]; stop: Stop; at: number } {
    const list: Node[] = [];
    for (;;) {
      const t = this.next();
      if (t.kind === 'eof') return { list, stop: 'eof', at: t.pos };
      if (t.kind === 'text') {
        list.push({ kind: 'text', pos: t.pos, text: t.value });
        continue;
      }
      // A left delimiter: a comment, a keyword or a pipeline.
      const first = this.peekNonSpace();
      if (first.kind === 'comment') {
        this.nextNonSpace();
        this.expect('right', 'comment');
        continue;
      }
      if (first.kind === 'keyword' && (first.value === 'end' || first.value === 'else')) {
        this.nextNonSpace();
        if (first.value === 'end') this.expect('right', 'end');
        return { list, stop: first.value, at: first.pos };
      }
      if (first.kind === 'keyword' && first.value === 'define') {
        if (!top) this.fail(first.pos, 'unexpected <define> in command');
        this.nextNonSpace();
        this.parseDefine();
        continue;
      }
      list.push(this.action(t.pos));
    }
  }

  private action(pos: number): Node {
    const t = this.peekNonSpace();
    if (t.kind === 'keyword') {
      this.nextNonSpace();
      switch (t.value) {
        case 'if':
          return this.control('if', t.pos);
        case 'with':
          return this.control('with', t.pos);
        case 'range':
          return this.control('range', t.pos);
        case 'template':
          return this.templateCall(t.pos, 'template clause');
        case 'block':
          return this.parseBlock(t.pos);
        case 'break':
        case 'continue':
          if (this.rangeDepth === 0) this.fail(t.pos, `{{${t.value}}} outside {{range}}`);
          this.expect('right', t.value);
          return { kind: t.value, pos: t.pos };
        default:
          return this.fail(t.pos, `unexpected <${t.value}> in command`);
      }
    }
    return { kind: 'action', pos, pipe: this.pipeline('command', 'right') };
  }

  /** `if`, `with` and `range`: the pipeline, the body, an optional else (or `else if`/`else with`) and `end`. */
  private control(kind: 'if' | 'with' | 'range', pos: number): Node {
    this.vars.push([]);
    const pipe = this.pipeline(kind, 'right');
    if (kind === 'range') this.rangeDepth += 1;
    const body = this.itemList(false);
    if (kind === 'range') this.rangeDepth -= 1;
    let elseList: Node[] | undefined;
    if (body.stop === 'eof') this.fail(body.at, `unexpected EOF`);
    if (body.stop === 'else') {
      const chained = this.peekNonSpace();
      if (kind !== 'range' && chained.kind === 'keyword' && chained.value === kind) {
        // `{{else if …}}` / `{{else with …}}`: a nested control that shares our `{{end}}`.
        this.nextNonSpace();
        elseList = [this.control(kind, chained.pos)];
      } else {
        this.expect('right', 'else');
        const rest = this.itemList(false);
        if (rest.stop !== 'end') this.fail(rest.at, rest.stop === 'eof' ? 'unexpected EOF' : 'expected end; found {{else}}');
        elseList = rest.list;
      }
    }
    this.vars.pop();
    return { kind, pos, pipe, list: body.list, elseList };
  }

  private templateName(context: string): string {
    const t = this.nextNonSpace();
    if (t.kind !== 'string' && t.kind !== 'rawString') this.unexpected(t, context);
    return unquote(t, (m) => this.fail(t.pos, m));
  }

  private templateCall(pos: number, context: string): Node {
    const name = this.templateName(context);
    const after = this.peekNonSpace();
    if (after.kind === 'right') {
      this.nextNonSpace();
      return { kind: 'template', pos, name, pipe: undefined };
    }
    return { kind: 'template', pos, name, pipe: this.pipeline(context, 'right') };
  }

  private parseDefine(): void {
    const nameTok = this.peekNonSpace();
    const name = this.templateName('define clause');
    this.expect('right', 'define clause');
    const saved = this.vars.splice(0, this.vars.length, ['$']);
    const body = this.itemList(false);
    this.vars.splice(0, this.vars.length, ...saved);
    if (body.stop !== 'end') this.fail(body.at, body.stop === 'eof' ? 'unexpected EOF' : 'unexpected {{else}}');
    this.addTree(name, body.list, nameTok.pos);
  }

  private parseBlock(pos: number): Node {
    const name = this.templateName('block clause');
    const pipe = this.pipeline('block clause', 'right');
    const saved = this.vars.splice(0, this.vars.length, ['$']);
    const body = this.itemList(false);
    this.vars.splice(0, this.vars.length, ...saved);
    if (body.stop !== 'end') this.fail(body.at, body.stop === 'eof' ? 'unexpected EOF' : 'unexpected {{else}}');
    this.addTree(name, body.list, pos);
    return { kind: 'template', pos, name, pipe };
  }

  /** A pipeline up to `end` (the closing delimiter or parenthesis), with its optional declaration. */
  private pipeline(context: string, end: 'right' | 'rightParen'): Pipe {
    const start = this.peekNonSpace();
    const pipe: Pipe = { pos: start.pos, decl: [], isAssign: false, cmds: [], text: '' };
    this.declaration(pipe, context);
    for (;;) {
      const t = this.peekNonSpace();
      if (t.kind === end) {
        this.nextNonSpace();
        if (pipe.cmds.length === 0) this.fail(t.pos, `missing value for ${context}`);
        pipe.text = this.text.slice(start.pos, t.pos).trim();
        this.checkPipeline(pipe, context);
        return pipe;
      }
      if (t.kind === 'eof' || t.kind === 'right' || t.kind === 'rightParen') this.unexpected(t, context);
      pipe.cmds.push(this.command(end));
    }
  }

  private declaration(pipe: Pipe, context: string): void {
    const save = this.i;
    const v = this.nextNonSpace();
    if (v.kind !== 'variable') {
      this.i = save;
      return;
    }
    const op = this.nextNonSpace();
    if (op.kind === 'declare' || op.kind === 'assign') {
      pipe.isAssign = op.kind === 'assign';
      if (pipe.isAssign) this.useVar(v);
      else this.declare(v.value);
      pipe.decl.push(v.value);
      return;
    }
    if (op.kind === 'comma' && context === 'range') {
      const second = this.nextNonSpace();
      const op2 = this.nextNonSpace();
      if (second.kind !== 'variable' || (op2.kind !== 'declare' && op2.kind !== 'assign')) this.fail(second.pos, 'range can only initialize variables');
      pipe.isAssign = op2.kind === 'assign';
      for (const tok of [v, second]) {
        if (pipe.isAssign) this.useVar(tok);
        else this.declare(tok.value);
        pipe.decl.push(tok.value);
      }
      return;
    }
    if (op.kind === 'comma') this.fail(op.pos, `too many declarations in ${context}`);
    this.i = save;
  }

  private declare(name: string): void {
    this.vars[this.vars.length - 1]?.push(name);
  }

  private useVar(t: Token): void {
    if (!this.vars.some((scope) => scope.includes(t.value))) this.fail(t.pos, `undefined variable ${JSON.stringify(t.value)}`);
  }

  private checkPipeline(pipe: Pipe, context: string): void {
    pipe.cmds.slice(1).forEach((cmd, i) => {
      const first = cmd.args[0];
      if (first !== undefined && ['bool', 'dot', 'nil', 'number', 'string'].includes(first.kind))
        this.fail(first.pos, `non executable command in pipeline stage ${i + 2}`);
    });
    const only = pipe.cmds[0]?.args[0];
    if (pipe.cmds.length === 1 && pipe.cmds[0]?.args.length === 1 && only?.kind === 'nil' && context !== 'parenthesized pipeline')
      this.fail(only.pos, 'nil is not a command');
  }

  private command(end: 'right' | 'rightParen'): Command {
    const first = this.peekNonSpace();
    const cmd: Command = { pos: first.pos, args: [] };
    for (;;) {
      this.peekNonSpace();
      const operand = this.operand();
      if (operand !== undefined) cmd.args.push(operand);
      const t = this.next();
      if (t.kind === 'space') continue;
      if (t.kind === end) {
        this.i -= 1;
        break;
      }
      if (t.kind === 'pipe') break;
      this.unexpected(t, 'operand');
    }
    if (cmd.args.length === 0) this.fail(first.pos, 'empty command');
    return cmd;
  }

  /** A term and the field chain after it (`(…).A.B`, `$x.A`, `.A.B`). */
  private operand(): Arg | undefined {
    const term = this.term();
    if (term === undefined) return undefined;
    if (this.peek().kind !== 'field') return term;
    const names: string[] = [];
    while (this.peek().kind === 'field') names.push(this.next().value.slice(1));
    switch (term.kind) {
      case 'field':
        return { ...term, names: [...term.names, ...names] };
      case 'variable':
        return { ...term, names: [...term.names, ...names] };
      case 'bool':
      case 'string':
      case 'number':
      case 'nil':
      case 'dot':
        return this.fail(
          term.pos,
          `unexpected . after term ${JSON.stringify(term.kind === 'dot' ? '.' : term.kind === 'nil' ? 'nil' : term.kind === 'bool' ? String(term.value) : term.text)}`,
        );
      default:
        return { kind: 'chain', pos: term.pos, node: term, names };
    }
  }

  private term(): Arg | undefined {
    const t = this.nextNonSpace();
    switch (t.kind) {
      case 'identifier':
        if (!this.options.functions.has(t.value)) this.fail(t.pos, `function ${JSON.stringify(t.value)} not defined`);
        return { kind: 'identifier', pos: t.pos, name: t.value };
      case 'dot':
        return { kind: 'dot', pos: t.pos };
      case 'nil':
        return { kind: 'nil', pos: t.pos };
      case 'variable': {
        this.useVar(t);
        return { kind: 'variable', pos: t.pos, name: t.value, names: [] };
      }
      case 'field':
        return { kind: 'field', pos: t.pos, names: [t.value.slice(1)] };
      case 'bool':
        return { kind: 'bool', pos: t.pos, value: t.value === 'true' };
      case 'number':
      case 'char':
        return { kind: 'number', pos: t.pos, value: numberValue(t, (m) => this.fail(t.pos, m)), text: t.value };
      case 'string':
      case 'rawString':
        return { kind: 'string', pos: t.pos, value: unquote(t, (m) => this.fail(t.pos, m)), text: t.value };
      case 'leftParen':
        return { kind: 'pipe', pos: t.pos, pipe: this.pipeline('parenthesized pipeline', 'rightParen') };
      default:
        this.i -= 1;
        return undefined;
    }
  }
}

function isEmpty(list: readonly Node[]): boolean {
  return list.every((n) => n.kind === 'text' && n.text.trim() === '');
}

const ESCAPES: Readonly<Record<string, string>> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"' };

/** Go's string and character literal syntax (strconv.Unquote). */
export function unquote(t: Token, fail: (message: string) => never): string {
  if (t.kind === 'rawString') return t.value.slice(1, -1).replaceAll('\r', '');
  const body = t.value.slice(1, -1);
  let out = '';
  for (let i = 0; i < body.length; i += 1) {
    const c = body[i] ?? '';
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[i + 1] ?? '';
    const simple = ESCAPES[e];
    if (simple !== undefined) {
      out += simple;
      i += 1;
      continue;
    }
    const width = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : /[0-7]/.test(e) ? 3 : 0;
    if (width === 0) fail(`invalid syntax: unknown escape sequence in ${t.value}`);
    const digits = e === 'x' || e === 'u' || e === 'U' ? body.slice(i + 2, i + 2 + width) : body.slice(i + 1, i + 1 + width);
    const value = Number.parseInt(digits, /[0-7]/.test(e) ? 8 : 16);
    if (digits.length !== width || Number.isNaN(value) || value > 0x10ffff) fail(`invalid syntax: bad escape in ${t.value}`);
    out += String.fromCodePoint(value);
    i += /[0-7]/.test(e) ? width : width + 1;
  }
  return out;
}

function numberValue(t: Token, fail: (message: string) => never): number {
  if (t.kind === 'char') {
    const s = unquote(t, fail);
    const cp = s.codePointAt(0);
    if (cp === undefined || [...s].length !== 1) fail(`malformed character constant: ${t.value}`);
    return cp;
  }
  const text = t.value.replaceAll('_', '');
  if (text.endsWith('i')) fail(`complex numbers are not supported: ${t.value}`);
  const sign = text.startsWith('-') ? -1 : 1;
  const body = text.replace(/^[+-]/, '');
  let value: number;
  if (/^0[xX][0-9a-fA-F]+$/.test(body)) value = Number.parseInt(body.slice(2), 16);
  else if (/^0[oO][0-7]+$/.test(body)) value = Number.parseInt(body.slice(2), 8);
  else if (/^0[bB][01]+$/.test(body)) value = Number.parseInt(body.slice(2), 2);
  else if (/^0[0-7]+$/.test(body)) value = Number.parseInt(body, 8);
  else if (/^(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/.test(body)) value = Number(body);
  else return fail(`bad number syntax: ${JSON.stringify(t.value)}`);
  return sign * value;
}
