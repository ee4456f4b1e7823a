/**
 * Go's `fmt` as templates use it: `print` (Sprint: a space between operands when neither is a
 * string), `println`, and `printf` with the verbs %v %s %d %q %t %f %x %X %o %b %c %e %g %%,
 * flags `-+# 0`, width and precision. Mistakes print as Go prints them (`%!d(string=x)`).
 * Results are bounded by MAX_OUTPUT: a width or precision past it, or a result growing past it,
 * is a RangeError (the executor reports it as `error calling printf: …` with the position) before
 * the string is built, so `printf "%300000000d"` costs nothing.
 */
import { MAX_OUTPUT } from './limits.ts';
import { formatNumber, formatValue, goTypeOf } from './values.ts';

function bounded(out: string): string {
  if (out.length > MAX_OUTPUT) throw new RangeError(`result longer than ${MAX_OUTPUT} characters`);
  return out;
}

export function sprint(args: readonly unknown[]): string {
  let out = '';
  args.forEach((arg, i) => {
    const prev = args[i - 1];
    if (i > 0 && typeof arg !== 'string' && typeof prev !== 'string') out += ' ';
    out = bounded(out + formatValue(arg));
  });
  return out;
}

export function sprintln(args: readonly unknown[]): string {
  return `${args.map(formatValue).join(' ')}\n`;
}

interface Spec {
  flags: string;
  width: number | undefined;
  precision: number | undefined;
  verb: string;
}

export function sprintf(format: string, args: readonly unknown[]): string {
  let out = '';
  let argIndex = 0;
  let i = 0;
  while (i < format.length) {
    const pct = format.indexOf('%', i);
    if (pct === -1) {
      out += format.slice(i);
      break;
    }
    out = bounded(out + format.slice(i, pct));
    const m = /^%([-+# 0]*)(\*|\d+)?(?:\.(\*|\d*))?(.)?/su.exec(format.slice(pct));
    const whole = m?.[0] ?? '%';
    i = pct + whole.length;
    const verb = m?.[4];
    if (verb === undefined) {
      out += '%!(NOVERB)';
      continue;
    }
    if (verb === '%') {
      out += '%';
      continue;
    }
    const star = (text: string | undefined): number | undefined => {
      if (text === undefined) return undefined;
      if (text === '*') {
        const v = args[argIndex];
        argIndex += 1;
        return typeof v === 'number' ? v : undefined;
      }
      return text === '' ? 0 : Number(text);
    };
    const spec: Spec = { flags: m?.[1] ?? '', width: star(m?.[2]), precision: star(m?.[3]), verb };
    for (const [what, n] of [
      ['width', spec.width],
      ['precision', spec.precision],
    ] as const) {
      if (n !== undefined && Math.abs(n) > MAX_OUTPUT) throw new RangeError(`${what} ${n} in ${JSON.stringify(whole)} is larger than ${MAX_OUTPUT}`);
    }
    if (argIndex >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    out = bounded(out + pad(formatOne(spec, args[argIndex]), spec));
    argIndex += 1;
  }
  if (argIndex < args.length)
    out += `%!(EXTRA ${args
      .slice(argIndex)
      .map((a) => `${goTypeOf(a)}=${formatValue(a)}`)
      .join(', ')})`;
  return bounded(out);
}

function pad(s: string, spec: Spec): string {
  if (spec.width === undefined || s.length >= spec.width) return s;
  if (spec.flags.includes('-')) return s.padEnd(spec.width, ' ');
  if (spec.flags.includes('0') && /[dfeEgGxXob]/.test(spec.verb) && /^[+-]?[0-9]/.test(s)) {
    const sign = /^[+-]/.test(s) ? (s[0] ?? '') : '';
    return sign + s.slice(sign.length).padStart(spec.width - sign.length, '0');
  }
  return s.padStart(spec.width, ' ');
}

const bad = (verb: string, v: unknown): string => `%!${verb}(${goTypeOf(v)}=${formatValue(v)})`;

function formatOne(spec: Spec, v: unknown): string {
  const { verb, precision, flags } = spec;
  const sign = (n: number, s: string): string => (n >= 0 && flags.includes('+') ? `+${s}` : n >= 0 && flags.includes(' ') ? ` ${s}` : s);
  switch (verb) {
    case 'v':
      return typeof v === 'string' && flags.includes('#') ? JSON.stringify(v) : formatValue(v);
    case 's': {
      if (typeof v === 'number' || typeof v === 'boolean') return bad(verb, v);
      const s = formatValue(v);
      return precision === undefined ? s : [...s].slice(0, precision).join('');
    }
    case 'q':
      if (typeof v === 'string') return flags.includes('#') && !v.includes('`') ? `\`${v}\`` : goQuote(v);
      if (typeof v === 'number' && Number.isInteger(v)) return `'${String.fromCodePoint(v)}'`;
      return bad(verb, v);
    case 't':
      return typeof v === 'boolean' ? String(v) : bad(verb, v);
    case 'd':
    case 'c':
    case 'x':
    case 'X':
    case 'o':
    case 'b':
      return formatInteger(spec, v, sign);
    case 'f':
    case 'F':
      return typeof v === 'number' ? sign(v, v.toFixed(precision ?? 6)) : bad(verb, v);
    case 'e':
    case 'E': {
      if (typeof v !== 'number') return bad(verb, v);
      const s = v.toExponential(precision ?? 6).replace(/e([+-])(\d)$/, 'e$10$2');
      return sign(v, verb === 'E' ? s.toUpperCase() : s);
    }
    case 'g':
    case 'G':
      return typeof v === 'number' ? sign(v, precision === undefined ? formatNumber(v) : Number(v.toPrecision(precision)).toString()) : bad(verb, v);
    default:
      return bad(verb, v);
  }
}

function formatInteger(spec: Spec, v: unknown, sign: (n: number, s: string) => string): string {
  const { verb, flags } = spec;
  if (verb === 'd') return typeof v === 'number' && Number.isInteger(v) ? sign(v, String(v)) : bad(verb, v);
  if (verb === 'c') return typeof v === 'number' && Number.isInteger(v) ? String.fromCodePoint(v) : bad(verb, v);
  const base = verb === 'o' ? 8 : verb === 'b' ? 2 : 16;
  let s: string;
  if (typeof v === 'number' && Number.isInteger(v)) s = sign(v, v.toString(base));
  else if (typeof v === 'string' && base === 16) s = Buffer.from(v).toString('hex');
  else return bad(verb, v);
  if (flags.includes('#') && base === 16) s = s.replace(/^(-?)/, '$10x');
  return verb === 'X' ? s.toUpperCase() : s;
}

/** strconv.Quote: a double-quoted Go string literal. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}
