/**
 * `hostwarden privatelink-controller`: AWS PrivateLink access from the hub account to private
 * Hive clusters (see docs/privatelink.md). Runs until SIGINT/SIGTERM.
 */
import type { Config } from '../config/config.ts';
import type { Logger } from '../log.ts';
import { PrivateLinkService } from '../privatelink/service.ts';

export interface ServiceIO {
  logger: Logger;
  stopSignal: AbortSignal;
  env: Readonly<Record<string, string | undefined>>;
}

export async function privatelinkControllerCommand(cfg: Config, io: ServiceIO): Promise<number> {
  const env = { KUBECONFIG: io.env['KUBECONFIG'], HOME: io.env['HOME'], KUBERNETES_SERVICE_HOST: io.env['KUBERNETES_SERVICE_HOST'], KUBERNETES_SERVICE_PORT: io.env['KUBERNETES_SERVICE_PORT'] };
  const service = await PrivateLinkService.fromConfig(cfg, { logger: io.logger, env });
  try {
    await service.start();
    await new Promise<void>((resolve) => {
      if (io.stopSignal.aborted) resolve();
      else io.stopSignal.addEventListener('abort', () => resolve(), { once: true });
    });
    io.logger.info('privatelink controller stopping');
    return 0;
  } finally {
    await service.stop();
  }
}
