/**
 * `hostwarden operator`: turns ExternalDNS objects (externaldns.olm.openshift.io) into Hostwarden
 * deployments and serves their validating and conversion webhooks (see docs/operator.md). Runs
 * until SIGINT/SIGTERM.
 */
import type { Config } from '../config/config.ts';
import { Operator } from '../operator/operator.ts';
import { runService } from './service.ts';
import type { ServiceIO } from './service.ts';

export function operatorCommand(cfg: Config, io: ServiceIO): Promise<number> {
  // The whole environment: the operator hands the proxy variables on to its operands.
  return runService(io, 'operator', () => Operator.fromConfig(cfg, { logger: io.logger, env: io.env }));
}
