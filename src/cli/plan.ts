/**
 * `hostwarden plan`: what would change, without changing anything. JSON output is the
 * external-dns Changes shape; text output is a coloured diff for people.
 */
import type { Config } from '../config/config.ts';
import { endpointToJSON } from '../endpoint/endpoint.ts';
import type { Endpoint } from '../endpoint/endpoint.ts';
import type { Logger } from '../log.ts';
import { calculatePlan } from '../plan/plan.ts';
import type { Changes } from '../plan/changes.ts';
import { loadInputs, planInputOf } from './inputs.ts';

export interface PrintIO {
  logger: Logger;
  write: (text: string) => void;
  colour: boolean;
  /** Environment variables providers and sources may read (ETCD_*, KUBECONFIG), passed from main. */
  env?: Readonly<Record<string, string | undefined>>;
}

export async function planCommand(cfg: Config, io: PrintIO): Promise<number> {
  const inputs = await loadInputs(cfg, io.logger, io.env);
  const { changes } = calculatePlan(planInputOf(cfg, inputs));
  if (cfg.output === 'json') {
    // JSON output stays machine-readable: the warnings go to the log (stderr) instead.
    for (const warning of inputs.warnings) io.logger.warn(warning);
    io.write(`${JSON.stringify(changesToJSON(changes), null, 2)}\n`);
  } else {
    io.write(formatChanges(changes, io.colour, inputs.warnings));
  }
  return 0;
}

export function changesToJSON(changes: Changes): Record<keyof Changes, unknown[]> {
  return {
    create: changes.create.map(endpointToJSON),
    updateOld: changes.updateOld.map(endpointToJSON),
    updateNew: changes.updateNew.map(endpointToJSON),
    delete: changes.delete.map(endpointToJSON),
  };
}

const GREEN = '\u001b[32m';
const YELLOW = '\u001b[33m';
const RED = '\u001b[31m';
const RESET = '\u001b[0m';

/** With warnings, an empty plan says why it may be empty instead of "No changes". */
export function formatChanges(changes: Changes, colour: boolean, warnings: readonly string[] = []): string {
  const paint = (code: string, text: string): string => (colour ? `${code}${text}${RESET}` : text);
  const lines: string[] = [];
  for (const ep of changes.create) lines.push(paint(GREEN, `+ ${recordLine(ep)}`));
  changes.updateNew.forEach((next, i) => {
    const prev = changes.updateOld[i];
    lines.push(paint(YELLOW, `~ ${next.dnsName} ${next.recordType}${setId(next)}`));
    if (prev !== undefined) lines.push(paint(RED, `    - ${details(prev)}`));
    lines.push(paint(GREEN, `    + ${details(next)}`));
  });
  for (const ep of changes.delete) lines.push(paint(RED, `- ${recordLine(ep)}`));
  const n = (k: number, what: string): string => `${k} to ${what}`;
  const empty = lines.length === 0;
  if (empty && warnings.length > 0) lines.push('Nothing planned, but not because the provider already holds the desired records: see the warning above.');
  else lines.push(empty ? 'No changes: the provider already holds the desired records.' : '');
  lines.push(`Plan: ${n(changes.create.length, 'create')}, ${n(changes.updateNew.length, 'update')}, ${n(changes.delete.length, 'delete')}.`);
  const head = warnings.flatMap((warning) => [paint(YELLOW, `Warning: ${warning}`), '']);
  return `${[...head, ...lines].join('\n')}\n`;
}

function setId(ep: Endpoint): string {
  return ep.setIdentifier === '' ? '' : ` [${ep.setIdentifier}]`;
}

function recordLine(ep: Endpoint): string {
  return `${ep.dnsName} ${ep.recordType}${setId(ep)} ${details(ep)}`;
}

function details(ep: Endpoint): string {
  const parts = [ep.targets.join(', ')];
  if (ep.recordTTL > 0) parts.push(`ttl=${ep.recordTTL}`);
  for (const p of ep.providerSpecific) parts.push(`${p.name}=${p.value}`);
  const owner = ep.labels['owner'];
  if (owner !== undefined) parts.push(`owner=${owner}`);
  const resource = ep.labels['resource'];
  if (resource !== undefined) parts.push(`resource=${resource}`);
  return parts.join(' ');
}
