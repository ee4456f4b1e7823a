/**
 * `hostwarden explain <hostname>`: for every desired endpoint and existing record at a name,
 * what the next sync will do and why — the answer to "why is my record not created?".
 */
import type { Config } from '../config/config.ts';
import { LABEL_RESOURCE } from '../endpoint/endpoint.ts';
import { normalizeDnsName } from '../endpoint/name.ts';
import { ConfigError, errorMessage } from '../errors.ts';
import { calculatePlan } from '../plan/plan.ts';
import type { Decision } from '../plan/plan.ts';
import { describeRef } from '../source/source.ts';
import type { SourceProblem } from '../source/source.ts';
import { resourceLabelOf } from '../source/translate/object.ts';
import { loadInputs, planInputOf } from './inputs.ts';
import type { PrintIO } from './plan.ts';

export async function explainCommand(cfg: Config, hostname: string | undefined, io: PrintIO): Promise<number> {
  if (hostname === undefined || hostname === '') throw new ConfigError('explain needs a hostname: hostwarden explain <hostname> [flags]', 'explain');
  let name: string;
  try {
    name = normalizeDnsName(hostname);
  } catch (err) {
    throw new ConfigError(`explain: ${errorMessage(err)}`, 'explain');
  }
  const inputs = await loadInputs(cfg, io.logger, io.env);
  for (const warning of inputs.warnings) io.logger.warn(warning);
  const { decisions } = calculatePlan(planInputOf(cfg, inputs, new Set([name])));
  // A held record's problem names its object, not the name: it is found through the resource label.
  const held = new Set(
    inputs.current.flatMap((e) => {
      const resource = e.dnsName === name ? e.labels[LABEL_RESOURCE] : undefined;
      return resource !== undefined && inputs.heldResources?.has(resource) === true ? [resource] : [];
    }),
  );
  const problems = inputs.problems.filter(
    (p) => p.message.toLowerCase().includes(name) || p.message.includes(hostname) || (p.ref !== undefined && held.has(resourceLabelOf(p.ref))),
  );
  const filtered = inputs.desired.filter((e) => e.dnsName === name).length + inputs.current.filter((e) => e.dnsName === name).length;

  if (cfg.output === 'json') {
    io.write(`${JSON.stringify({ name, decisions, problems: problems.map(problemText) }, null, 2)}\n`);
    return 0;
  }
  io.write(formatExplanation(name, decisions, problems, filtered));
  return 0;
}

export function formatExplanation(name: string, decisions: readonly Decision[], problems: readonly SourceProblem[], seen: number): string {
  const lines = [name];
  if (decisions.length === 0 && problems.length === 0) {
    lines.push(seen === 0 ? '  nothing: no source asks for this name and the provider holds no record there' : '  nothing to do');
  }
  for (const d of decisions) {
    const who = [d.resource === undefined ? '' : `from ${d.resource}`, d.owner === undefined ? '' : `owner ${d.owner}`].filter((s) => s !== '').join(', ');
    const fields = d.fields === undefined || d.fields.length === 0 ? '' : ` (${d.fields.join(', ')})`;
    const setId = d.setIdentifier === '' ? '' : ` [${d.setIdentifier}]`;
    lines.push(`  ${d.action.padEnd(6)} ${d.recordType}${setId}${who === '' ? '' : ` ${who}`}: ${d.reason}${fields}`);
  }
  for (const p of problems) lines.push(`  skip   invalid input: ${problemText(p)}`);
  return `${lines.join('\n')}\n`;
}

function problemText(p: SourceProblem): string {
  const where = p.ref !== undefined ? describeRef(p.ref) : p.file === undefined ? '' : p.line === undefined ? p.file : `${p.file}:${p.line}`;
  return where === '' ? p.message : `${where}: ${p.message}`;
}
