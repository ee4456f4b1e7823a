/**
 * `hostwarden dnsrecord-controller`: the Gardener DNSRecord extension controller (see
 * docs/dnsrecord.md). Runs until SIGINT/SIGTERM.
 */
import type { Config } from '../config/config.ts';
import { DNSRecordService } from '../dnsrecord/service.ts';
import { kubeEnv, runService } from './service.ts';
import type { ServiceIO } from './service.ts';

export function dnsrecordControllerCommand(cfg: Config, io: ServiceIO): Promise<number> {
  return runService(io, 'dnsrecord-controller', () => DNSRecordService.fromConfig(cfg, { logger: io.logger, env: kubeEnv(io.env) }));
}
