/** Where in a template something went wrong, in the form Go's text/template prints it. */

export interface Position {
  /** 1-based line. */
  line: number;
  /** Byte column within the line, counted from 0 as Go's `ErrorContext` does. */
  col: number;
}

export function positionOf(text: string, pos: number): Position {
  const before = text.slice(0, pos);
  const lastNewline = before.lastIndexOf('\n');
  return { line: before.split('\n').length, col: Buffer.byteLength(before.slice(lastNewline + 1)) };
}

/**
 * A parse or execution error: `template: NAME:LINE:COL: message`, as Go words it (Go's parse
 * errors carry only the line; the column is added here so a long one-line flag value is easy to fix).
 */
export class TemplateError extends Error {
  readonly templateName: string;
  readonly position: Position;
  readonly detail: string;

  constructor(templateName: string, position: Position, detail: string) {
    super(`template: ${templateName}:${position.line}:${position.col}: ${detail}`);
    this.name = 'TemplateError';
    this.templateName = templateName;
    this.position = position;
    this.detail = detail;
  }
}
