/**
 * A Go text/template evaluator written from the language specification
 * (https://pkg.go.dev/text/template): parse once, execute against data many times. A library:
 * it knows nothing of Kubernetes or DNS; callers bring the data (see values.ts for how Go's
 * values map onto JSON) and extra functions.
 */
import { execute } from './exec.ts';
import type { ExecOptions } from './exec.ts';
import { BUILTINS } from './functions.ts';
import type { FuncMap } from './functions.ts';
import { parse } from './parse.ts';
import type { TreeSet } from './parse.ts';

export interface TemplateOptions {
  /** The name errors show (`template: NAME:1:3: …`); external-dns names its templates `endpoint`. */
  name?: string;
  /** Functions beyond Go's predefined ones; they may replace a predefined one. */
  functions?: FuncMap;
}

export class Template {
  private constructor(
    readonly text: string,
    readonly name: string,
    private readonly trees: TreeSet,
    private readonly functions: FuncMap,
  ) {}

  /** Parses `text`; throws TemplateError (`template: NAME:LINE:COL: …`) when it is not a valid template. */
  static parse(text: string, options: TemplateOptions = {}): Template {
    const name = options.name ?? 'template';
    const functions: FuncMap = { ...BUILTINS, ...options.functions };
    return new Template(text, name, parse(text, { name, functions: new Set(Object.keys(functions)) }), functions);
  }

  /**
   * The same template with some functions bound differently (external-dns rebinds `isSource` per
   * source). Only functions the template already knows can be replaced: parsing checked the names.
   */
  withFunctions(functions: FuncMap): Template {
    return new Template(this.text, this.name, this.trees, { ...this.functions, ...functions });
  }

  /** Renders the template against `data`; throws TemplateError on an execution error. */
  execute(data: unknown, options: ExecOptions = {}): string {
    return execute(this.text, this.name, this.trees, this.functions, data, options);
  }
}
