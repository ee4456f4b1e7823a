/**
 * `hostwarden admission-webhook`: the ValidatingAdmissionWebhook that keeps Service externalIPs
 * inside the configured ranges (see docs/admission.md). Runs until SIGINT/SIGTERM.
 */
import { AdmissionWebhook } from '../admission/webhook.ts';
import type { Config } from '../config/config.ts';
import { kubeEnv, runService } from './service.ts';
import type { ServiceIO } from './service.ts';

export function admissionWebhookCommand(cfg: Config, io: ServiceIO): Promise<number> {
  return runService(io, 'admission webhook', () => AdmissionWebhook.fromConfig(cfg, { logger: io.logger, env: kubeEnv(io.env) }));
}
