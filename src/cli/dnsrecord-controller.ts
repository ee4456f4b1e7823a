/** `hostwarden dnsrecord-controller`: not built yet; being written (see the open issue). */
import type { Config } from '../config/config.ts';
import type { Logger } from '../log.ts';

export interface ServiceIO {
  logger: Logger;
  stopSignal: AbortSignal;
  env: Readonly<Record<string, string | undefined>>;
}

export function dnsrecordControllerCommand(_cfg: Config, io: ServiceIO): Promise<number> {
  io.logger.error('dnsrecord-controller is not available in this build yet');
  return Promise.resolve(1);
}
