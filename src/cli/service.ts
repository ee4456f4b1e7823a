/**
 * The shape shared by the long-running service commands (admission-webhook, dnsrecord-controller,
 * operator, privatelink-controller): build, start, serve until SIGINT/SIGTERM, always stop.
 */
import type { Logger } from '../log.ts';

export interface ServiceIO {
  logger: Logger;
  stopSignal: AbortSignal;
  env: Readonly<Record<string, string | undefined>>;
}

export interface Service {
  start(): Promise<unknown>;
  stop(): Promise<void>;
}

/** Only what locating the kubeconfig needs, so services do not see the rest of the environment. */
export function kubeEnv(env: ServiceIO['env']): Record<'KUBECONFIG' | 'HOME' | 'KUBERNETES_SERVICE_HOST' | 'KUBERNETES_SERVICE_PORT', string | undefined> {
  return {
    KUBECONFIG: env['KUBECONFIG'],
    HOME: env['HOME'],
    KUBERNETES_SERVICE_HOST: env['KUBERNETES_SERVICE_HOST'],
    KUBERNETES_SERVICE_PORT: env['KUBERNETES_SERVICE_PORT'],
  };
}

/** Runs the service until io.stopSignal aborts; stop() runs even when start() fails. Exit code 0. */
export async function runService(io: ServiceIO, name: string, build: () => Promise<Service>): Promise<number> {
  const service = await build();
  try {
    await service.start();
    await new Promise<void>((resolve) => {
      if (io.stopSignal.aborted) resolve();
      else io.stopSignal.addEventListener('abort', () => resolve(), { once: true });
    });
    io.logger.info(`${name} stopping`);
    return 0;
  } finally {
    await service.stop();
  }
}
