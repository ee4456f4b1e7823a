/**
 * `hostwarden admission-webhook`: the ValidatingAdmissionWebhook that keeps Service externalIPs
 * inside the configured ranges (see docs/admission.md). Runs until SIGINT/SIGTERM.
 */
import { AdmissionWebhook } from '../admission/webhook.ts';
import type { Config } from '../config/config.ts';
import type { Logger } from '../log.ts';

export interface AdmissionWebhookIO {
  logger: Logger;
  stopSignal: AbortSignal;
  env: Readonly<Record<string, string | undefined>>;
}

export async function admissionWebhookCommand(cfg: Config, io: AdmissionWebhookIO): Promise<number> {
  const env = { KUBECONFIG: io.env['KUBECONFIG'], HOME: io.env['HOME'], KUBERNETES_SERVICE_HOST: io.env['KUBERNETES_SERVICE_HOST'], KUBERNETES_SERVICE_PORT: io.env['KUBERNETES_SERVICE_PORT'] };
  const webhook = await AdmissionWebhook.fromConfig(cfg, { logger: io.logger, env });
  try {
    await webhook.start();
    await new Promise<void>((resolve) => {
      if (io.stopSignal.aborted) resolve();
      else io.stopSignal.addEventListener('abort', () => resolve(), { once: true });
    });
    io.logger.info('admission webhook stopping');
    return 0;
  } finally {
    await webhook.stop();
  }
}
