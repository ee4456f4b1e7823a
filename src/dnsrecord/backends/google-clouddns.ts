/**
 * The google-clouddns type: Cloud DNS managed zones through the google provider's SDK client.
 * Credentials come from the Secret as Gardener's provider-gcp keeps them: the key file JSON under
 * `serviceaccount.json` (a service account key, or an `external_account` configuration for
 * workload identity federation), the project from its `project_id` unless a `projectID` or
 * `project` key names one. Cloud DNS has no upsert: a change deletes the exact current record set
 * and adds the new one, so a write that meets an existing set reads it first.
 */
import { GoogleAuth } from 'google-auth-library';
import { quoteTxt } from '../../dns/master-file.ts';
import { ProviderError, errorMessage } from '../../errors.ts';
import { SdkGoogleDnsApi } from '../../provider/google/record-sets.ts';
import type { GoogleClientOptions, GoogleDnsApi } from '../../provider/google/record-sets.ts';
import type { GoogleRRSet } from '../../provider/google/record-sets.ts';
import { absoluteName } from '../../provider/presentation.ts';
import { ConfigurationProblem, secretValue } from '../backend.ts';
import type { BackendContext, BackendZone, RecordSet, RecordSetBackend } from '../backend.ts';

export const GOOGLE_KEYS = {
  serviceAccount: ['serviceaccount.json'],
  project: ['projectID', 'project'],
} as const;

const SCOPE = 'https://www.googleapis.com/auth/ndev.clouddns.readwrite';

export interface GoogleBackendDefaults {
  /** host[:port] of the Cloud DNS API; empty for dns.googleapis.com. */
  apiEndpoint: string;
  /** Replaces the Secret's login (tests with a static token); the Secret must still parse. */
  authClient?: GoogleClientOptions['authClient'];
}

/** The Cloud DNS record set for a DNSRecord: absolute names, TXT quoted once and split at 255. */
export function toGoogleRRSet(rrset: RecordSet): GoogleRRSet {
  const rrdatas = rrset.values.map((v) => (rrset.type === 'TXT' ? quoteTxt(v) : rrset.type === 'CNAME' ? absoluteName(v) : v));
  return { name: absoluteName(rrset.name), type: rrset.type, ttl: rrset.ttl, rrdatas };
}

/** The key file JSON and the project it is for, or a ConfigurationProblem naming what is wrong. */
export function googleCredentials(ctx: Pick<BackendContext, 'secret' | 'secretName'>): { credentials: Record<string, unknown>; project: string } {
  const text = secretValue(ctx, GOOGLE_KEYS.serviceAccount, true);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigurationProblem(`secret ${ctx.secretName}: "serviceaccount.json" is not JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new ConfigurationProblem(`secret ${ctx.secretName}: "serviceaccount.json" is not a JSON object`);
  const credentials = parsed as Record<string, unknown>;
  const kind = credentials['type'];
  if (kind !== 'service_account' && kind !== 'external_account') {
    throw new ConfigurationProblem(
      `secret ${ctx.secretName}: "serviceaccount.json" has type ${JSON.stringify(kind)}, not "service_account" or "external_account"`,
    );
  }
  const fromFile = typeof credentials['project_id'] === 'string' ? credentials['project_id'] : '';
  const project = secretValue(ctx, GOOGLE_KEYS.project, false) ?? fromFile;
  if (project === '')
    throw new ConfigurationProblem(
      `secret ${ctx.secretName} names no project: "serviceaccount.json" has no project_id and there is no key "projectID" or "project"`,
    );
  return { credentials, project };
}

export class GoogleCloudDnsBackend implements RecordSetBackend {
  constructor(private readonly api: GoogleDnsApi) {}

  static async build(ctx: BackendContext, defaults: GoogleBackendDefaults): Promise<GoogleCloudDnsBackend> {
    const { credentials, project } = googleCredentials(ctx);
    // Builds the client only: the first API call makes the token request.
    const authClient =
      defaults.authClient ??
      (await new GoogleAuth({ credentials, scopes: [SCOPE], projectId: project }).getClient().catch((err: unknown) => {
        throw new ConfigurationProblem(`secret ${ctx.secretName}: "serviceaccount.json" cannot be used: ${errorMessage(err)}`);
      }));
    return new GoogleCloudDnsBackend(new SdkGoogleDnsApi({ project, keyFile: '', apiEndpoint: defaults.apiEndpoint, authClient }));
  }

  async listZones(): Promise<BackendZone[]> {
    return (await this.api.listZones()).map((z) => ({ id: z.id, name: z.dnsName }));
  }

  async upsert(zoneId: string, rrset: RecordSet): Promise<void> {
    const wanted = toGoogleRRSet(rrset);
    try {
      await this.api.createChange(zoneId, [wanted], []);
      return;
    } catch (err) {
      if (status(err) !== 409) throw err;
    }
    // The set exists: a change must delete exactly what is there, so read it.
    const current = await this.current(zoneId, wanted);
    if (current !== undefined && same(current, wanted)) return;
    await this.api.createChange(zoneId, [wanted], current === undefined ? [] : [current]);
  }

  async remove(zoneId: string, rrset: RecordSet): Promise<void> {
    const wanted = toGoogleRRSet(rrset);
    try {
      await this.api.createChange(zoneId, [], [wanted]);
      return;
    } catch (err) {
      // 404: the record set or its zone is gone; 412: someone changed it since we wrote it.
      if (status(err) === 404) return;
      if (status(err) !== 412) throw err;
    }
    const current = await this.current(zoneId, wanted).catch((e: unknown) => {
      if (status(e) === 404) return undefined;
      throw e;
    });
    if (current === undefined) return;
    await this.api.createChange(zoneId, [], [current]).catch((e: unknown) => {
      if (status(e) !== 404) throw e;
    });
  }

  private async current(zoneId: string, wanted: GoogleRRSet): Promise<GoogleRRSet | undefined> {
    return (await this.api.listRRSets(zoneId)).find((s) => s.name.toLowerCase() === wanted.name && s.type === wanted.type);
  }
}

/** The HTTP status of a Cloud DNS error (the SDK's error is the ProviderError's cause). */
function status(err: unknown): number {
  const cause = err instanceof ProviderError ? err.cause : err;
  const code = (cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' ? code : 0;
}

function same(a: GoogleRRSet, b: GoogleRRSet): boolean {
  const x = [...a.rrdatas].sort();
  const y = [...b.rrdatas].sort();
  return a.ttl === b.ttl && x.length === y.length && x.every((v, i) => v === y[i]);
}
