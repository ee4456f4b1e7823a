/**
 * Entry point: the only place that reads argv, the environment and process signals. Exit codes:
 * 0 success, 1 runtime failure, 2 configuration error.
 */
import { resolveConfig } from '../config/config.ts';
import type { Config } from '../config/config.ts';
import { isTrueText } from '../config/parse.ts';
import { ConfigError, errorMessage } from '../errors.ts';
import { packageVersion } from '../http/build-info.ts';
import { createLogger } from '../log.ts';
import type { Logger } from '../log.ts';
import { heapGrowthPercent, v8HeapGrowthOption } from './heap.ts';
import { runtimeWarning } from './runtime.ts';
import { COMMANDS, commandHelp, parseCommandArgs } from './commands.ts';
import type { Command as ServiceCommand } from './commands.ts';
import { PROVIDER_NAMES, SOURCE_NAMES } from './wiring.ts';

type Command = ServiceCommand | 'help' | 'version';
const ALL_COMMANDS: readonly string[] = [...COMMANDS, 'help', 'version'];

export interface Process {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  onSignal: (signal: 'SIGINT' | 'SIGTERM', handler: () => void) => void;
  /** Sets a V8 option for this process (`--heap-growth-percent`); absent when main runs inside a test. */
  setV8Option?: (option: string) => void;
  /** `process.version`, to warn on an unsupported Node.js release; absent when main runs inside a test. */
  nodeVersion?: string;
}

export async function main(proc: Process): Promise<number> {
  const chosen = chooseCommand(proc);
  if (typeof chosen === 'number') return chosen;
  const { command, args } = chosen;
  let cfg: Config;
  let positionals: string[];
  try {
    const parsed = parseCommandArgs(command, args, proc.env);
    if (command !== 'explain' && parsed.positionals.length > 0) throw new ConfigError(`unexpected argument ${JSON.stringify(parsed.positionals[0])}`);
    cfg = resolveConfig(parsed, { sources: SOURCE_NAMES, providers: PROVIDER_NAMES });
    positionals = parsed.positionals;
    const heapOption = v8HeapGrowthOption(heapGrowthPercent(cfg.flags));
    if (heapOption !== undefined) proc.setV8Option?.(heapOption);
  } catch (err) {
    if (err instanceof ConfigError) return configFailure(proc, err);
    throw err;
  }

  // plan and explain print their answer on stdout; routine progress logs would only bury it.
  const quiet = (command === 'plan' || command === 'explain') && !cfg.explicit.has('log-level');
  const logger = createLogger(quiet ? 'warn' : cfg.logLevel, cfg.logFormat, proc.stderr);
  const runtime = proc.nodeVersion === undefined ? undefined : runtimeWarning(proc.nodeVersion, new Date());
  if (runtime !== undefined) logger.warn({ node: proc.nodeVersion }, runtime);
  try {
    return await runChosen(command, cfg, positionals, proc, logger);
  } catch (err) {
    if (err instanceof ConfigError) return configFailure(proc, err);
    logger.error({ err: errorMessage(err), code: (err as { code?: string }).code }, `${command} failed`);
    return 1;
  }
}

function configFailure(proc: Process, err: ConfigError): number {
  proc.stderr.write(`hostwarden: ${err.message}\n`);
  return 2;
}

/** The command and its arguments, or the exit code when help, the version or an unknown command was asked for. */
function chooseCommand(proc: Process): { command: ServiceCommand; args: string[] } | number {
  const args = [...proc.argv];
  // Without a command, behave like external-dns: flags alone run the sync loop.
  const first = args[0];
  let command: Command = 'run';
  if (first === '--help' || first === '-h') command = 'help';
  else if (first !== undefined && !first.startsWith('-')) {
    if (!ALL_COMMANDS.includes(first)) {
      proc.stderr.write(`hostwarden: unknown command ${JSON.stringify(first)}; commands: ${ALL_COMMANDS.join(', ')}\n`);
      return 2;
    }
    command = first as Command;
    args.shift();
  }
  const flags = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
  if (
    command !== 'help' &&
    command !== 'version' &&
    flags.some((a) => a === '--version' || (a.startsWith('--version=') && isTrueText(a.slice('--version='.length))))
  ) {
    // As external-dns (kingpin's --version): the version alone, exit 0, whatever else is given.
    proc.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  if (command === 'help' || args.includes('--help') || args.includes('-h')) {
    // `hostwarden --help` (and `help`) is run's help, as external-dns's; `hostwarden X --help` is X's.
    proc.stdout.write(helpText(command === 'help' || command === 'version' ? 'run' : command));
    return 0;
  }
  if (command === 'version') {
    proc.stdout.write(`hostwarden ${packageVersion()}\n`);
    return 0;
  }
  return { command, args };
}

/**
 * SIGINT and SIGTERM abort the returned signal. For run, a second signal exits at once: an operator
 * pressing Ctrl-C twice means it.
 */
function stopOnSignals(proc: Process, logger: Logger, exitOnSecond: boolean): AbortSignal {
  const stop = new AbortController();
  const onStop = (): void => {
    if (stop.signal.aborted && exitOnSecond) process.exit(130);
    if (exitOnSecond) logger.info('stopping');
    stop.abort();
  };
  proc.onSignal('SIGINT', onStop);
  proc.onSignal('SIGTERM', onStop);
  return stop.signal;
}

/** Command modules load on demand: each pulls in only what its command needs. */
async function runChosen(command: ServiceCommand, cfg: Config, positionals: string[], proc: Process, logger: Logger): Promise<number> {
  if (command === 'plan' || command === 'explain') {
    const colour = cfg.color === 'always' || (cfg.color === 'auto' && proc.stdout.isTTY === true && proc.env['NO_COLOR'] === undefined);
    const print = { logger, colour, env: proc.env, write: (text: string) => void proc.stdout.write(text) };
    if (command === 'plan') return (await import('./plan.ts')).planCommand(cfg, print);
    return (await import('./explain.ts')).explainCommand(cfg, positionals[0], print);
  }
  const io = { logger, stopSignal: stopOnSignals(proc, logger, command === 'run'), env: proc.env };
  switch (command) {
    case 'run':
      // external-dns --webhook-server: serve the provider instead of syncing (on webhook-server's default --listen).
      if (cfg.flags.bool('webhook-server')) return (await import('./webhook-server.ts')).webhookServerCommand(cfg, io);
      return (await import('./run.ts')).runCommand(cfg, io);
    case 'webhook-server':
      return (await import('./webhook-server.ts')).webhookServerCommand(cfg, io);
    case 'admission-webhook':
      return (await import('./admission-webhook.ts')).admissionWebhookCommand(cfg, io);
    case 'dnsrecord-controller':
      return (await import('./dnsrecord-controller.ts')).dnsrecordControllerCommand(cfg, io);
    case 'operator':
      return (await import('./operator.ts')).operatorCommand(cfg, io);
    case 'privatelink-controller':
      return (await import('./privatelink-controller.ts')).privatelinkControllerCommand(cfg, io);
  }
}

const USAGE: Readonly<Record<ServiceCommand, string>> = {
  run: 'hostwarden [run] [flags]            keep DNS records in sync (the default command)',
  plan: 'hostwarden plan [flags]             show what would change (--records/--desired files or the configured source and provider)',
  explain: 'hostwarden explain <name> [flags]   say what will happen to one name, and why',
  'webhook-server': 'hostwarden webhook-server [flags]   serve --provider over the external-dns webhook protocol on --listen',
  'admission-webhook': 'hostwarden admission-webhook [flags] keep Service externalIPs in allowed ranges (HTTPS admission webhook on --listen, default :9443)',
  'dnsrecord-controller': 'hostwarden dnsrecord-controller [flags] make Gardener DNSRecord objects real with any provider',
  operator: 'hostwarden operator [flags]         turn ExternalDNS objects into Hostwarden deployments',
  'privatelink-controller': 'hostwarden privatelink-controller [flags] AWS PrivateLink access to private Hive clusters',
};

function helpText(command: ServiceCommand): string {
  const commands = COMMANDS.map((c) => `  ${USAGE[c]}`).join('\n');
  const intro =
    command === 'run'
      ? `Usage:\n${commands}\n  hostwarden version\n\n"hostwarden <command> --help" lists that command's flags. The flags of run:`
      : `Usage: ${USAGE[command]}`;
  return commandHelp(command, intro);
}
