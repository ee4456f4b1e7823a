/**
 * The lexer of Go's text/template language (https://pkg.go.dev/text/template), written from its
 * specification: text between `{{ }}` actions, trim markers (`{{- ` and ` -}}` eat the white space
 * next to them), comments, and inside actions the tokens of pipelines. Positions are offsets into
 * the template text so errors can say line and column.
 */

export type TokenKind =
  | 'text'
  | 'left'
  | 'right'
  | 'space'
  | 'identifier'
  | 'keyword'
  | 'field'
  | 'variable'
  | 'dot'
  | 'string'
  | 'rawString'
  | 'char'
  | 'number'
  | 'bool'
  | 'nil'
  | 'pipe'
  | 'leftParen'
  | 'rightParen'
  | 'declare'
  | 'assign'
  | 'comma'
  | 'comment'
  | 'eof';

export interface Token {
  kind: TokenKind;
  /** The token's text (for `text` tokens, after trimming). */
  value: string;
  /** Offset into the template text. */
  pos: number;
}

/** A lexical error at a position; the parser turns it into a TemplateError. */
export class LexError extends Error {
  readonly pos: number;
  constructor(message: string, pos: number) {
    super(message);
    this.pos = pos;
  }
}

export const KEYWORDS: ReadonlySet<string> = new Set(['if', 'else', 'end', 'range', 'with', 'define', 'template', 'block', 'break', 'continue']);

const LEFT = '{{';
const RIGHT = '}}';
const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isAlnum = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{Nd}_]/u.test(c);

/** Whether `{{- ` (or ` -}}`) starts at `i`: the marker needs white space on its inner side. */
const trimLeftAt = (s: string, i: number): boolean => s[i] === '-' && isSpace(s[i + 1]);
const trimRightAt = (s: string, i: number): boolean => isSpace(s[i]) && s[i + 1] === '-' && s.startsWith(RIGHT, i + 2);

/** Tokens of one template text; throws LexError on malformed input. */
export function lex(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let trimNext = false;
  while (i <= input.length) {
    const open = input.indexOf(LEFT, i);
    const end = open === -1 ? input.length : open;
    let text = input.slice(i, end);
    if (trimNext) text = text.replace(/^[ \t\r\n]+/, '');
    if (open === -1) {
      if (text !== '') tokens.push({ kind: 'text', value: text, pos: i });
      break;
    }
    const trimsLeft = trimLeftAt(input, open + 2);
    if (trimsLeft) text = text.replace(/[ \t\r\n]+$/, '');
    if (text !== '') tokens.push({ kind: 'text', value: text, pos: i });
    const result = lexAction(input, open, trimsLeft, tokens);
    i = result.next;
    trimNext = result.trimRight;
  }
  tokens.push({ kind: 'eof', value: '', pos: input.length });
  return tokens;
}

interface ActionEnd {
  next: number;
  trimRight: boolean;
}

/** Lexes one `{{ … }}` starting at `open`; returns where the text after it starts. */
function lexAction(s: string, open: number, trimsLeft: boolean, out: Token[]): ActionEnd {
  out.push({ kind: 'left', value: LEFT, pos: open });
  let i = open + 2 + (trimsLeft ? 2 : 0);
  // A comment must follow the delimiter (and its trim marker) directly and end right before the closing one.
  if (s.startsWith('/*', i)) {
    const close = s.indexOf('*/', i + 2);
    if (close === -1) throw new LexError('unclosed comment', i);
    out.push({ kind: 'comment', value: s.slice(i, close + 2), pos: i });
    let j = close + 2;
    const trimRight = trimRightAt(s, j);
    if (trimRight) j += 2;
    if (!s.startsWith(RIGHT, j)) throw new LexError('comment ends before closing delimiter', j);
    out.push({ kind: 'right', value: RIGHT, pos: j });
    return { next: j + 2, trimRight };
  }
  let depth = 0;
  for (;;) {
    if (trimRightAt(s, i)) {
      if (depth > 0) throw new LexError('unclosed left paren', i);
      out.push({ kind: 'right', value: RIGHT, pos: i + 2 });
      return { next: i + 4, trimRight: true };
    }
    if (s.startsWith(RIGHT, i)) {
      if (depth > 0) throw new LexError('unclosed left paren', i);
      out.push({ kind: 'right', value: RIGHT, pos: i });
      return { next: i + 2, trimRight: false };
    }
    const c = s[i];
    if (c === undefined) throw new LexError('unclosed action', i);
    if (isSpace(c)) {
      let j = i;
      while (isSpace(s[j]) && !trimRightAt(s, j)) j += 1;
      if (j === i) j += 1;
      out.push({ kind: 'space', value: s.slice(i, j), pos: i });
      i = j;
      continue;
    }
    i = lexInside(s, i, out, (d) => (depth += d), depth);
  }
}

/** One token inside an action at `i`; returns the offset after it. */
function lexInside(s: string, i: number, out: Token[], nest: (delta: number) => void, depth: number): number {
  const c = s[i] ?? '';
  const push = (kind: TokenKind, end: number): number => {
    out.push({ kind, value: s.slice(i, end), pos: i });
    return end;
  };
  const single = SINGLE[c];
  if (single !== undefined) return push(single, i + 1);
  if (c === ':') {
    if (s[i + 1] !== '=') throw new LexError('expected :=', i);
    return push('declare', i + 2);
  }
  if (c === '(') {
    nest(1);
    return push('leftParen', i + 1);
  }
  if (c === ')') {
    if (depth === 0) throw new LexError('unexpected right paren', i);
    nest(-1);
    return push('rightParen', i + 1);
  }
  if (c === '"' || c === "'" || c === '`') return push(c === '"' ? 'string' : c === "'" ? 'char' : 'rawString', quoteEnd(s, i));
  if (c === '$') {
    let j = i + 1;
    while (isAlnum(s[j])) j += 1;
    return push('variable', j);
  }
  if (c === '.') {
    // A number like .5, a field .Name, or dot itself.
    if (/[0-9]/.test(s[i + 1] ?? '')) return push('number', numberEnd(s, i));
    let j = i + 1;
    while (isAlnum(s[j])) j += 1;
    return push(j === i + 1 ? 'dot' : 'field', j);
  }
  if (/[0-9+-]/.test(c)) return push('number', numberEnd(s, i));
  if (isAlnum(c)) {
    let j = i;
    while (isAlnum(s[j])) j += 1;
    return push(wordKind(s.slice(i, j)), j);
  }
  throw new LexError(`unrecognized character in action: ${JSON.stringify(c)}`, i);
}

function wordKind(word: string): TokenKind {
  if (KEYWORDS.has(word)) return 'keyword';
  if (word === 'true' || word === 'false') return 'bool';
  return word === 'nil' ? 'nil' : 'identifier';
}

const SINGLE: Readonly<Record<string, TokenKind>> = { '|': 'pipe', ',': 'comma', '=': 'assign' };

function quoteEnd(s: string, i: number): number {
  const c = s[i];
  if (c === '"') return quotedEnd(s, i, '"', 'unterminated quoted string');
  if (c === "'") return quotedEnd(s, i, "'", 'unterminated character constant');
  const close = s.indexOf('`', i + 1);
  if (close === -1) throw new LexError('unterminated raw quoted string', i);
  return close + 1;
}

function quotedEnd(s: string, i: number, quote: string, unterminated: string): number {
  let j = i + 1;
  for (;;) {
    const c = s[j];
    if (c === undefined || c === '\n') throw new LexError(unterminated, i);
    if (c === '\\') j += 2;
    else if (c === quote) return j + 1;
    else j += 1;
  }
}

function numberEnd(s: string, i: number): number {
  const m = /^[+-]?(?:0[xX][0-9a-fA-F_]*(?:\.[0-9a-fA-F_]*)?(?:[pP][+-]?[0-9_]+)?|0[oObB][0-7_]+|[0-9_]*\.?[0-9_]*(?:[eE][+-]?[0-9_]+)?)i?/.exec(s.slice(i));
  const len = m?.[0].length ?? 0;
  const end = i + Math.max(len, 1);
  if (isAlnum(s[end]) || s[end] === '.') throw new LexError(`bad number syntax: ${JSON.stringify(s.slice(i, end + 1))}`, i);
  return end;
}
