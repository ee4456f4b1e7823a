/**
 * `hostwarden dnsrecord-controller`: the Gardener DNSRecord extension controller (see
 * docs/dnsrecord.md). Runs until SIGINT/SIGTERM.
 */
import type { Config } from '../config/config.ts';
import { DNSRecordService } from '../dnsrecord/service.ts';
import type { Logger } from '../log.ts';

export interface ServiceIO {
  logger: Logger;
  stopSignal: AbortSignal;
  env: Readonly<Record<string, string | undefined>>;
}

export async function dnsrecordControllerCommand(cfg: Config, io: ServiceIO): Promise<number> {
  const env = { KUBECONFIG: io.env['KUBECONFIG'], HOME: io.env['HOME'], KUBERNETES_SERVICE_HOST: io.env['KUBERNETES_SERVICE_HOST'], KUBERNETES_SERVICE_PORT: io.env['KUBERNETES_SERVICE_PORT'] };
  const service = await DNSRecordService.fromConfig(cfg, { logger: io.logger, env });
  try {
    await service.start();
    await new Promise<void>((resolve) => {
      if (io.stopSignal.aborted) resolve();
      else io.stopSignal.addEventListener('abort', () => resolve(), { once: true });
    });
    io.logger.info('dnsrecord-controller stopping');
    return 0;
  } finally {
    await service.stop();
  }
}
