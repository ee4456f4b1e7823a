/**
 * `hostwarden privatelink-controller`: AWS PrivateLink access from the hub account to private
 * Hive clusters (see docs/privatelink.md). Runs until SIGINT/SIGTERM.
 */
import type { Config } from '../config/config.ts';
import { PrivateLinkService } from '../privatelink/service.ts';
import { kubeEnv, runService } from './service.ts';
import type { ServiceIO } from './service.ts';

export function privatelinkControllerCommand(cfg: Config, io: ServiceIO): Promise<number> {
  return runService(io, 'privatelink controller', () => PrivateLinkService.fromConfig(cfg, { logger: io.logger, env: kubeEnv(io.env) }));
}
