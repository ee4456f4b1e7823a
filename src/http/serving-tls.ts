/**
 * The serving certificate of an HTTPS webhook from the shared --tls-cert-file,
 * --tls-private-key-file and --tls-self-signed flags: files (re-read when they change) or, for
 * local use, a self-signed certificate.
 */
import { CertificateFiles, selfSignedCertificate } from './tls.ts';
import type { TlsMaterial } from './tls.ts';
import type { FlagValues } from '../config/config.ts';
import { ConfigError } from '../errors.ts';
import type { Logger } from '../log.ts';

export interface ServingTlsFlags {
  certFile: string;
  keyFile: string;
  selfSigned: boolean;
}

export interface ServingTls {
  material: TlsMaterial;
  /** Undefined for a self-signed certificate; otherwise watch it to reload the certificate. */
  files: CertificateFiles | undefined;
}

/**
 * The TLS flags, checked: files or self-signed, not both, not neither. `needs` opens the error
 * (e.g. 'the admission webhook serves HTTPS'); `alternative` is one more fix (e.g. how to serve none).
 */
export function servingTlsFlags(flags: Pick<FlagValues, 'str' | 'bool'>, needs: string, alternative?: string): ServingTlsFlags {
  const certFile = flags.str('tls-cert-file');
  const keyFile = flags.str('tls-private-key-file');
  const selfSigned = flags.bool('tls-self-signed');
  if (selfSigned && (certFile !== '' || keyFile !== ''))
    throw new ConfigError('--tls-self-signed cannot be used with --tls-cert-file/--tls-private-key-file', '--tls-self-signed');
  if (!selfSigned && (certFile === '' || keyFile === '')) {
    const fixes = alternative === undefined ? ' (or --tls-self-signed for local use)' : `, --tls-self-signed for local use, or ${alternative}`;
    throw new ConfigError(`${needs}: set --tls-cert-file and --tls-private-key-file${fixes}`, certFile === '' ? '--tls-cert-file' : '--tls-private-key-file');
  }
  return { certFile, keyFile, selfSigned };
}

/** Loads what servingTlsFlags allowed; `selfSignedWarning`, when given, is logged for a self-signed one. */
export async function loadServingTls(settings: ServingTlsFlags, logger: Logger, selfSignedWarning?: string): Promise<ServingTls> {
  if (settings.selfSigned) {
    const material = await selfSignedCertificate(['localhost', '127.0.0.1', '::1']);
    if (selfSignedWarning !== undefined) logger.warn(selfSignedWarning);
    return { material, files: undefined };
  }
  const files = new CertificateFiles({ certFile: settings.certFile, keyFile: settings.keyFile, logger: logger.child({ component: 'tls' }) });
  return { material: await files.load(), files };
}
