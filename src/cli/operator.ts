/**
 * `hostwarden operator`: turns ExternalDNS objects (externaldns.olm.openshift.io) into Hostwarden
 * deployments and serves their validating and conversion webhooks (see docs/operator.md). Runs
 * until SIGINT/SIGTERM.
 */
import type { Config } from '../config/config.ts';
import type { Logger } from '../log.ts';
import { Operator } from '../operator/operator.ts';

export interface ServiceIO {
  logger: Logger;
  stopSignal: AbortSignal;
  env: Readonly<Record<string, string | undefined>>;
}

export async function operatorCommand(cfg: Config, io: ServiceIO): Promise<number> {
  const operator = await Operator.fromConfig(cfg, { logger: io.logger, env: io.env });
  try {
    await operator.start();
    await new Promise<void>((resolve) => {
      if (io.stopSignal.aborted) resolve();
      else io.stopSignal.addEventListener('abort', () => resolve(), { once: true });
    });
    io.logger.info('operator stopping');
    return 0;
  } finally {
    await operator.stop();
  }
}
