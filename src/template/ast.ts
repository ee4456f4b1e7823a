/** The parse tree of a template, as Go's text/template/parse describes it (trimmed to what executes). */

export type Node = TextNode | ActionNode | IfNode | RangeNode | WithNode | TemplateCallNode | BreakNode | ContinueNode;

export interface TextNode {
  kind: 'text';
  pos: number;
  text: string;
}

export interface ActionNode {
  kind: 'action';
  pos: number;
  pipe: Pipe;
}

/** `if` and `with` share a shape; `else if` / `else with` are a nested branch in `elseList`. */
export interface IfNode {
  kind: 'if';
  pos: number;
  pipe: Pipe;
  list: Node[];
  elseList: Node[] | undefined;
}

export interface WithNode {
  kind: 'with';
  pos: number;
  pipe: Pipe;
  list: Node[];
  elseList: Node[] | undefined;
}

export interface RangeNode {
  kind: 'range';
  pos: number;
  pipe: Pipe;
  list: Node[];
  elseList: Node[] | undefined;
}

export interface TemplateCallNode {
  kind: 'template';
  pos: number;
  name: string;
  pipe: Pipe | undefined;
}

export interface BreakNode {
  kind: 'break';
  pos: number;
}

export interface ContinueNode {
  kind: 'continue';
  pos: number;
}

/** `$x := a | b c`: declared (or assigned) variables and the commands. */
export interface Pipe {
  pos: number;
  decl: string[];
  isAssign: boolean;
  cmds: Command[];
  /** The source text, for error context (`executing "name" at <…>`). */
  text: string;
}

export interface Command {
  pos: number;
  args: Arg[];
}

export type Arg =
  | { kind: 'field'; pos: number; names: string[] }
  | { kind: 'variable'; pos: number; name: string; names: string[] }
  | { kind: 'chain'; pos: number; node: Arg; names: string[] }
  | { kind: 'identifier'; pos: number; name: string }
  | { kind: 'dot'; pos: number }
  | { kind: 'nil'; pos: number }
  | { kind: 'bool'; pos: number; value: boolean }
  | { kind: 'number'; pos: number; value: number; text: string }
  | { kind: 'string'; pos: number; value: string; text: string }
  | { kind: 'pipe'; pos: number; pipe: Pipe };

/** How an argument reads in Go's error messages (`<.Spec.Name>`). */
export function argText(arg: Arg): string {
  switch (arg.kind) {
    case 'field':
      return arg.names.map((n) => `.${n}`).join('');
    case 'variable':
      return arg.name + arg.names.map((n) => `.${n}`).join('');
    case 'chain':
      return `${arg.node.kind === 'pipe' ? `(${arg.node.pipe.text})` : argText(arg.node)}${arg.names.map((n) => `.${n}`).join('')}`;
    case 'identifier':
      return arg.name;
    case 'dot':
      return '.';
    case 'nil':
      return 'nil';
    case 'bool':
      return String(arg.value);
    case 'number':
    case 'string':
      return arg.text;
    case 'pipe':
      return `(${arg.pipe.text})`;
  }
}
