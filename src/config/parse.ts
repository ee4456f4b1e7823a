/**
 * Reads argv and the environment into raw flag values. Parsing only checks syntax (known flag,
 * value present, number or duration well-formed); meaning is checked by validate.ts.
 */
import { ConfigError } from '../errors.ts';
import { parseDuration } from './duration.ts';
import { FLAGS, envName } from './flags.ts';
import type { FlagSpec } from './flags.ts';
import { UNIMPLEMENTED_FLAGS, unimplementedChoiceMessage, unimplementedFlagMessage } from './upstream-flags.ts';

export type FlagValue = string | boolean | number | string[];

export interface ParsedArgs {
  values: Map<string, FlagValue>;
  /** Flags given on the command line or in the environment (not defaults). */
  explicit: Set<string>;
  positionals: string[];
}

// Go's strconv.ParseBool (what kingpin uses) also takes t and f.
const TRUE = new Set(['true', '1', 'yes', 'on', 't']);
const FALSE = new Set(['false', '0', 'no', 'off', 'f']);

/** Whether a bool flag's text value means true, as the parser reads it (`--version=1` included). */
export function isTrueText(value: string): boolean {
  return TRUE.has(value.toLowerCase());
}

/**
 * `flags` is the core table plus the flags that provider and source folders declare for
 * themselves (see src/cli/wiring.ts), so adding a provider never touches the core table.
 */
export function parseArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, flags: readonly FlagSpec[] = FLAGS): ParsedArgs {
  const specs = new Map(flags.flatMap((f) => [f.name, ...(f.aliases ?? [])].map((n) => [n, f] as const)));
  const values = new Map<string, FlagValue>();
  const explicit = new Set<string>();
  const fromArgv = new Set<string>();
  const positionals: string[] = [];

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--')) {
      if (arg.startsWith('-') && arg.length > 1) throw new ConfigError(`unknown flag ${arg}; flags are written --name`, arg);
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    let name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    let inline: string | undefined = eq === -1 ? undefined : arg.slice(eq + 1);
    let spec = specs.get(name);
    if (spec === undefined && name.startsWith('no-') && inline === undefined) {
      const positive = specs.get(name.slice(3));
      if (positive?.kind === 'bool') {
        spec = positive;
        name = positive.name;
        inline = 'false';
      }
    }
    if (spec === undefined) throw new ConfigError(unimplementedFlagMessage(name) ?? `unknown flag --${name}`, `--${name}`);
    name = spec.name;
    let raw: string;
    if (inline !== undefined) raw = inline;
    else if (spec.kind === 'bool') raw = 'true';
    else {
      const next = argv[i + 1];
      if (next === undefined) throw new ConfigError(`--${name} needs a value`, `--${name}`);
      raw = next;
      i++;
    }
    const value = convert(spec, raw, `--${name}`);
    if (spec.kind === 'list' && fromArgv.has(name)) {
      (values.get(name) as string[]).push(...(value as string[]));
    } else {
      values.set(name, value);
    }
    fromArgv.add(name);
    explicit.add(name);
  }

  // Commands that take external-dns's --provider are the ones an external-dns environment is meant for.
  if (specs.has('provider')) refuseUnimplementedEnv(env);
  for (const spec of flags) {
    if (fromArgv.has(spec.name)) continue;
    const envValue = [spec.name, ...(spec.aliases ?? [])].map((n) => env[envName(n)]).find((v) => v !== undefined);
    if (envValue !== undefined) {
      const parts = spec.kind === 'list' ? envValue.split(/\r?\n/).filter((s) => s !== '') : [envValue];
      const value = spec.kind === 'list' ? parts.flatMap((p) => convert(spec, p, envName(spec.name)) as string[]) : convert(spec, envValue, envName(spec.name));
      values.set(spec.name, value);
      explicit.add(spec.name);
    } else if (spec.default !== undefined) {
      values.set(spec.name, convert(spec, spec.default, `--${spec.name}`));
    }
  }
  return { values, explicit, positionals };
}

function refuseUnimplementedEnv(env: Readonly<Record<string, string | undefined>>): void {
  for (const group of UNIMPLEMENTED_FLAGS) {
    for (const flag of group.flags) {
      const variable = envName(flag);
      if (env[variable] !== undefined) throw new ConfigError(unimplementedFlagMessage(flag, `${variable} (--${flag})`) ?? variable, `--${flag}`);
    }
  }
}

function convert(spec: FlagSpec, raw: string | boolean | readonly string[], where: string): FlagValue {
  if (Array.isArray(raw)) return [...(raw as readonly string[])];
  if (typeof raw === 'boolean') return raw;
  const text = raw as string;
  switch (spec.kind) {
    case 'bool': {
      const lower = text.toLowerCase();
      if (TRUE.has(lower)) return true;
      if (FALSE.has(lower)) return false;
      throw new ConfigError(`${where} takes true or false, got ${JSON.stringify(text)}`, `--${spec.name}`);
    }
    case 'int': {
      if (!/^-?\d+$/.test(text.trim())) throw new ConfigError(`${where} takes a whole number, got ${JSON.stringify(text)}`, `--${spec.name}`);
      return Number(text);
    }
    case 'duration': {
      const ms = parseDuration(text);
      if (ms === undefined) throw new ConfigError(`${where} takes a duration such as 30s, 1m or 1h, got ${JSON.stringify(text)}`, `--${spec.name}`);
      return ms;
    }
    case 'list':
      return [text];
    case 'string':
      if (spec.choices !== undefined && !spec.choices.includes(text)) {
        const lacking = spec.name === 'registry' ? unimplementedChoiceMessage('registry', text) : undefined;
        if (lacking !== undefined) throw new ConfigError(lacking, `--${spec.name}`);
        throw new ConfigError(`${where} must be one of ${spec.choices.join(', ')}, got ${JSON.stringify(text)}`, `--${spec.name}`);
      }
      return text;
  }
}
