/**
 * The executor: walks a parsed tree against data, as Go's text/template executes (dot, `$`,
 * variables scoped to their control structure, `and`/`or` short-circuiting, `range` over slices,
 * maps in key order and integers, `break`/`continue`). Work is bounded: template calls nest at
 * most MAX_DEPTH deep and the output and step count are capped, so a hostile template cannot hang
 * or exhaust a sync.
 */
import { argText } from './ast.ts';
import type { Arg, Command, Node, Pipe } from './ast.ts';
import { convertArg, FuncError } from './functions.ts';
import type { FuncMap, FuncSpec } from './functions.ts';
import { positionOf, TemplateError } from './position.ts';
import type { TreeSet } from './parse.ts';
import { MAX_DEPTH, MAX_OUTPUT, MAX_PRODUCED, MAX_STEPS } from './limits.ts';
import { formatValue, goTypeOf, isStruct, isTrue, isZero, mapEntries, NO_FIELD, ZERO } from './values.ts';

export { MAX_DEPTH, MAX_OUTPUT, MAX_PRODUCED, MAX_STEPS };

export interface ExecOptions {
  /** Go's `missingkey=error`: a missing map key is an error instead of `<no value>`. */
  missingKeyError?: boolean;
}

class BreakSignal {}
class ContinueSignal {}

/** No value passed along the pipeline yet (distinct from Go's invalid value, `undefined`). */
const MISSING: unique symbol = Symbol('missing');
type Final = unknown;

interface Variable {
  name: string;
  value: unknown;
}

export function execute(text: string, name: string, trees: TreeSet, funcs: FuncMap, data: unknown, options: ExecOptions): string {
  const root = trees.get(name) ?? [];
  const state = new State(text, name, trees, funcs, options, [{ name: '$', value: data }]);
  try {
    state.walkList(data, root);
    return state.out.join('');
  } catch (err) {
    // "Invalid string length", "Maximum call stack size exceeded", a number format out of range:
    // the template's fault, so it is reported like any other execution error, with its position.
    if (err instanceof RangeError) state.failOn(err);
    throw err;
  }
}

class State {
  readonly out: string[] = [];
  private outLength = 0;
  private produced = 0;
  private steps = 0;
  private depth = 0;
  private at: { pos: number; text: string } = { pos: 0, text: '' };

  constructor(
    private readonly text: string,
    private readonly name: string,
    private readonly trees: TreeSet,
    private readonly funcs: FuncMap,
    private readonly options: ExecOptions,
    private vars: Variable[],
  ) {}

  /** A JavaScript RangeError as an execution error at the position reached. */
  failOn(err: RangeError): never {
    return this.fail(err.message);
  }

  private fail(message: string): never {
    const context = this.at.text === '' ? '' : ` at <${this.at.text}>`;
    throw new TemplateError(this.name, positionOf(this.text, this.at.pos), `executing ${JSON.stringify(this.name)}${context}: ${message}`);
  }

  private setAt(pos: number, text: string): void {
    this.at = { pos, text };
    this.steps += 1;
    if (this.steps > MAX_STEPS) this.fail(`more than ${MAX_STEPS} steps`);
  }

  private write(s: string): void {
    this.outLength += s.length;
    if (this.outLength > MAX_OUTPUT) this.fail(`output longer than ${MAX_OUTPUT} characters`);
    this.out.push(s);
  }

  walkList(dot: unknown, list: readonly Node[]): void {
    for (const node of list) this.walk(dot, node);
  }

  private walk(dot: unknown, node: Node): void {
    switch (node.kind) {
      case 'text':
        this.setAt(node.pos, '');
        this.write(node.text);
        return;
      case 'action': {
        const value = this.evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) this.write(formatValue(value));
        return;
      }
      case 'if':
      case 'with':
        this.walkIfOrWith(dot, node.kind, node.pipe, node.list, node.elseList);
        return;
      case 'range':
        this.walkRange(dot, node.pipe, node.list, node.elseList);
        return;
      case 'template':
        this.walkTemplate(dot, node.name, node.pipe, node.pos);
        return;
      case 'break':
        throw new BreakSignal();
      case 'continue':
        throw new ContinueSignal();
    }
  }

  private scoped(f: () => void): void {
    const mark = this.vars.length;
    try {
      f();
    } finally {
      this.vars.length = mark;
    }
  }

  private walkIfOrWith(dot: unknown, kind: 'if' | 'with', pipe: Pipe, list: readonly Node[], elseList: readonly Node[] | undefined): void {
    this.scoped(() => {
      const value = this.evalPipeline(dot, pipe);
      if (isTrue(value)) this.walkList(kind === 'with' ? value : dot, list);
      else if (elseList !== undefined) this.walkList(dot, elseList);
    });
  }

  private walkRange(dot: unknown, pipe: Pipe, list: readonly Node[], elseList: readonly Node[] | undefined): void {
    this.scoped(() => {
      const value = this.evalPipeline(dot, pipe);
      const mark = this.vars.length;
      const one = (index: unknown, elem: unknown): boolean => {
        const [first, second] = pipe.decl;
        if (first !== undefined) this.assignRangeVar(pipe, first, second === undefined ? elem : index, mark - pipe.decl.length);
        if (second !== undefined) this.assignRangeVar(pipe, second, elem, mark - 1);
        try {
          this.walkList(elem, list);
        } catch (signal) {
          if (signal instanceof BreakSignal) return false;
          if (!(signal instanceof ContinueSignal)) throw signal;
        } finally {
          this.vars.length = mark;
        }
        return true;
      };
      const items = this.rangeItems(value);
      for (const [index, elem] of items) if (!one(index, elem)) return;
      if (items.length === 0 && elseList !== undefined) this.walkList(dot, elseList);
    });
  }

  private assignRangeVar(pipe: Pipe, name: string, value: unknown, slot: number): void {
    if (pipe.isAssign) this.setVar(name, value);
    else {
      const v = this.vars[slot];
      if (v !== undefined) v.value = value;
    }
  }

  private rangeItems(value: unknown): [unknown, unknown][] {
    if (value === undefined || value === null || isZero(value)) return [];
    if (Array.isArray(value)) return value.map((v, i) => [i, v]);
    const entries = mapEntries(value);
    if (entries !== undefined)
      return Object.keys(entries)
        .sort()
        .map((k) => [k, entries[k]]);
    if (typeof value === 'number' && Number.isInteger(value)) {
      if (value > MAX_STEPS) this.fail(`range over ${value} exceeds ${MAX_STEPS} iterations`);
      return Array.from({ length: Math.max(value, 0) }, (_, i) => [i, i]);
    }
    return this.fail(`range can't iterate over ${formatValue(value)}`);
  }

  private walkTemplate(dot: unknown, name: string, pipe: Pipe | undefined, pos: number): void {
    this.setAt(pos, `template ${JSON.stringify(name)}`);
    const tree = this.trees.get(name);
    if (tree === undefined) this.fail(`template ${JSON.stringify(name)} not defined`);
    if (this.depth >= MAX_DEPTH) this.fail(`exceeded maximum template depth (${MAX_DEPTH})`);
    const newDot = pipe === undefined ? undefined : this.evalPipeline(dot, pipe);
    const saved = this.vars;
    this.vars = [{ name: '$', value: newDot }];
    this.depth += 1;
    try {
      this.walkList(newDot, tree);
    } finally {
      this.depth -= 1;
      this.vars = saved;
    }
  }

  private setVar(name: string, value: unknown): void {
    for (let i = this.vars.length - 1; i >= 0; i -= 1) {
      const v = this.vars[i];
      if (v?.name === name) {
        v.value = value;
        return;
      }
    }
    this.fail(`undefined variable: ${name}`);
  }

  private varValue(name: string): unknown {
    for (let i = this.vars.length - 1; i >= 0; i -= 1) {
      const v = this.vars[i];
      if (v?.name === name) return v.value;
    }
    return this.fail(`undefined variable: ${name}`);
  }

  private evalPipeline(dot: unknown, pipe: Pipe): unknown {
    this.setAt(pipe.pos, pipe.text);
    let value: Final = MISSING;
    for (const cmd of pipe.cmds) value = this.evalCommand(dot, cmd, value);
    for (const name of pipe.decl) {
      if (pipe.isAssign) this.setVar(name, value);
      else this.vars.push({ name, value });
    }
    return value;
  }

  private notAFunction(args: readonly Arg[], final: Final): void {
    const first = args[0];
    if (args.length > 1 || final !== MISSING) this.fail(`can't give argument to non-function ${first === undefined ? '' : argText(first)}`);
  }

  private evalCommand(dot: unknown, cmd: Command, final: Final): unknown {
    const first = cmd.args[0];
    if (first === undefined) return this.fail('empty command');
    this.setAt(first.pos, argText(first));
    switch (first.kind) {
      case 'field':
        return this.evalFieldChain(dot, dot, first.names, cmd.args, final);
      case 'chain': {
        if (first.node.kind === 'nil') this.fail(`indirection through explicit nil in ${argText(first)}`);
        const base = this.evalArg(dot, first.node);
        this.setAt(first.pos, argText(first));
        return this.evalFieldChain(dot, base, first.names, cmd.args, final);
      }
      case 'identifier':
        return this.evalFunction(dot, first.name, cmd.args, final);
      case 'pipe':
        this.notAFunction(cmd.args, final);
        return this.evalPipeline(dot, first.pipe);
      case 'variable': {
        const value = this.varValue(first.name);
        if (first.names.length === 0) {
          this.notAFunction(cmd.args, final);
          return value;
        }
        return this.evalFieldChain(dot, value, first.names, cmd.args, final);
      }
      case 'nil':
        return this.fail('nil is not a command');
      default:
        this.notAFunction(cmd.args, final);
        return first.kind === 'dot' ? dot : first.value;
    }
  }

  private evalFieldChain(dot: unknown, receiver: unknown, names: readonly string[], args: readonly Arg[], final: Final): unknown {
    let value = receiver;
    names.forEach((name, i) => {
      const last = i === names.length - 1;
      value = this.evalField(name, last ? args : [], last ? final : MISSING, value);
    });
    return value;
  }

  private evalField(name: string, args: readonly Arg[], final: Final, receiver: unknown): unknown {
    const hasArgs = args.length > 1 || final !== MISSING;
    if (receiver === undefined) {
      if (this.options.missingKeyError === true) this.fail(`nil data; no entry for key ${JSON.stringify(name)}`);
      return undefined;
    }
    if (receiver === null) return this.fail(`nil pointer evaluating interface {}.${name}`);
    if (isZero(receiver)) {
      if (/^\p{Lu}/u.test(name)) return ZERO;
      return this.fail(`can't evaluate field ${name} in type ${goTypeOf(receiver)}`);
    }
    if (isStruct(receiver)) {
      const value = receiver.field(name);
      if (value === NO_FIELD) return this.fail(`can't evaluate field ${name} in type ${receiver.goType}`);
      if (hasArgs) this.fail(`${name} has arguments but cannot be invoked as function`);
      return value;
    }
    const entries = mapEntries(receiver);
    if (entries !== undefined) {
      if (hasArgs) this.fail(`${name} is not a method but has arguments`);
      if (Object.hasOwn(entries, name)) return entries[name];
      if (this.options.missingKeyError === true) this.fail(`map has no entry for key ${JSON.stringify(name)}`);
      return undefined;
    }
    return this.fail(`can't evaluate field ${name} in type ${goTypeOf(receiver)}`);
  }

  private evalFunction(dot: unknown, name: string, args: readonly Arg[], final: Final): unknown {
    const spec = this.funcs[name];
    if (spec === undefined) return this.fail(`${JSON.stringify(name)} is not a defined function`);
    const given = args.slice(1);
    const count = given.length + (final === MISSING ? 0 : 1);
    const fixed = spec.params.length;
    if (spec.variadic === undefined ? count !== fixed : count < fixed) {
      this.fail(`wrong number of args for ${name}: want ${spec.variadic === undefined ? '' : 'at least '}${fixed} got ${count}`);
    }
    if (name === 'and' || name === 'or') return this.evalAndOr(dot, name, given, final);
    const at = this.at;
    const values = given.map((arg, i) => this.convert(this.evalArg(dot, arg), paramAt(spec, i), name, arg));
    if (final !== MISSING) values.push(this.convert(final, paramAt(spec, given.length), name, undefined));
    this.at = at;
    return this.call(name, spec, values);
  }

  /** `and`/`or` stop at the first argument that decides the result, as Go ≥ 1.18 does. */
  private evalAndOr(dot: unknown, name: 'and' | 'or', args: readonly Arg[], final: Final): unknown {
    let value: unknown;
    const thunks: (() => unknown)[] = args.map((arg) => () => this.evalArg(dot, arg));
    if (final !== MISSING) thunks.push(() => final);
    for (const thunk of thunks) {
      value = thunk() ?? null;
      if (isTrue(value) === (name === 'or')) return value;
    }
    return value;
  }

  private convert(value: unknown, type: ReturnType<typeof paramAt>, fnName: string, arg: Arg | undefined): unknown {
    const converted = convertArg(value, type);
    if (converted.ok) return converted.value;
    if (arg !== undefined) this.setAt(arg.pos, argText(arg));
    return this.fail(arg === undefined ? `error calling ${fnName}: ${converted.message}` : converted.message);
  }

  private call(name: string, spec: FuncSpec, values: unknown[]): unknown {
    let result: unknown;
    try {
      result = spec.call(values);
    } catch (err) {
      if (err instanceof FuncError || err instanceof RangeError) this.fail(`error calling ${name}: ${err.message}`);
      throw err;
    }
    if (typeof result === 'string') {
      // Functions that bound their own work (printf, replace) fail earlier; this catches the rest.
      if (result.length > MAX_OUTPUT) this.fail(`error calling ${name}: result longer than ${MAX_OUTPUT} characters`);
      this.produced += result.length;
      if (this.produced > MAX_PRODUCED) this.fail(`error calling ${name}: function results longer than ${MAX_PRODUCED} characters in all`);
    }
    return result;
  }

  private evalArg(dot: unknown, arg: Arg): unknown {
    this.setAt(arg.pos, argText(arg));
    switch (arg.kind) {
      case 'dot':
        return dot;
      case 'nil':
        return null;
      case 'field':
        return this.evalFieldChain(dot, dot, arg.names, [arg], MISSING);
      case 'variable': {
        const value = this.varValue(arg.name);
        return arg.names.length === 0 ? value : this.evalFieldChain(dot, value, arg.names, [arg], MISSING);
      }
      case 'chain': {
        if (arg.node.kind === 'nil') this.fail(`indirection through explicit nil in ${argText(arg)}`);
        const base = this.evalArg(dot, arg.node);
        return this.evalFieldChain(dot, base, arg.names, [arg], MISSING);
      }
      case 'pipe':
        return this.evalPipeline(dot, arg.pipe);
      case 'identifier':
        return this.evalFunction(dot, arg.name, [arg], MISSING);
      default:
        return arg.value;
    }
  }
}

function paramAt(spec: FuncSpec, i: number): NonNullable<FuncSpec['variadic']> {
  return spec.params[i] ?? spec.variadic ?? 'any';
}
