/**
 * `hostwarden webhook-server`: serves the configured provider over the external-dns webhook
 * protocol on --listen, for an external-dns running `--provider webhook`. With the embedded
 * provider it also answers DNS on --dns-listen, as `run` does, so the records it is sent are live.
 */
import { Registry as MetricsRegistry, collectDefaultMetrics } from 'prom-client';
import type { Config } from '../config/config.ts';
import { parseListenAddress } from '../config/config.ts';
import { DnsServer } from '../dns/server/server.ts';
import { ConfigError, errorMessage } from '../errors.ts';
import { connectionLimitsFromFlags } from '../http/flags.ts';
import type { Logger } from '../log.ts';
import { EmbeddedProvider } from '../provider/embedded/embedded.ts';
import { webhookMaxBodyBytes } from '../provider/webhook/flags.ts';
import { WebhookServer } from '../provider/webhook/server.ts';
import { buildProvider } from './wiring.ts';

export interface WebhookServerIO {
  logger: Logger;
  stopSignal: AbortSignal;
  /** For providers that honour variables (coredns: ETCD_*); main passes its own. */
  env?: Readonly<Record<string, string | undefined>>;
}

export async function webhookServerCommand(cfg: Config, io: WebhookServerIO): Promise<number> {
  const { logger } = io;
  if (cfg.provider === 'webhook') throw new ConfigError('webhook-server needs a provider other than webhook', '--provider');
  const { host, port } = parseListenAddress(cfg.flags.str('listen'), '--listen');
  const readTimeoutMs = cfg.flags.num('webhook-provider-read-timeout');
  const writeTimeoutMs = cfg.flags.num('webhook-provider-write-timeout');
  if (readTimeoutMs <= 0) throw new ConfigError('--webhook-provider-read-timeout must be greater than 0', '--webhook-provider-read-timeout');
  if (writeTimeoutMs <= 0) throw new ConfigError('--webhook-provider-write-timeout must be greater than 0', '--webhook-provider-write-timeout');
  // external-dns's webhook-server flags; an explicit --http-* flag still wins.
  const limits = connectionLimitsFromFlags(cfg.flags);
  for (const [flag, http, key] of [
    ['webhook-provider-read-header-timeout', 'http-headers-timeout', 'headersTimeoutMs'],
    ['webhook-provider-idle-timeout', 'http-idle-timeout', 'idleTimeoutMs'],
  ] as const) {
    const ms = cfg.flags.num(flag);
    if (ms <= 0) throw new ConfigError(`--${flag} must be greater than 0`, `--${flag}`);
    if (!cfg.explicit.has(http)) limits[key] = ms;
  }
  const maxBodyBytes = webhookMaxBodyBytes(cfg.flags);

  const metrics = new MetricsRegistry();
  collectDefaultMetrics({ register: metrics });
  const provider = await buildProvider(cfg, { logger, metrics, watch: false, ...(io.env === undefined ? {} : { env: io.env }) });
  const closers: (() => Promise<void>)[] = [async () => provider.close?.()];
  try {
    if (provider instanceof EmbeddedProvider && cfg.dnsListen.length > 0) {
      const dns = DnsServer.fromConfig(cfg, { logger: logger.child({ component: 'dns' }), metrics });
      // Listening first would answer REFUSED for the zones until they reach the server.
      provider.store.addListener(dns);
      closers.push(() => dns.stop());
      await dns.start();
    }
    const server = new WebhookServer({
      provider,
      logger: logger.child({ component: 'webhook-server' }),
      metrics,
      readTimeoutMs,
      writeTimeoutMs,
      limits,
      maxBodyBytes,
    });
    await server.start(host, port);
    closers.push(() => server.stop());
    await new Promise<void>((resolve) => {
      if (io.stopSignal.aborted) resolve();
      else io.stopSignal.addEventListener('abort', () => resolve(), { once: true });
    });
    logger.info('webhook server stopped');
    return 0;
  } finally {
    for (const close of closers.reverse()) {
      try {
        await close();
      } catch (err) {
        logger.warn({ err: errorMessage(err) }, 'error while shutting down');
      }
    }
  }
}
