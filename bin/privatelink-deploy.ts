/**
 * Writes deploy/privatelink/standalone/ — the PrivateLink controller for clusters without Hive —
 * from what the repository already holds, so nothing there is restated by hand:
 *   00-crds.json      Hive's four CRDs the controller uses, from test/support/crds/hive (Hive's
 *                     published config/crds, descriptions dropped; the source in an annotation)
 *   deployment.json   deploy/privatelink/deployment.json plus the admission server (flag, port,
 *                     certificate volume); webhook.json registers it
 * test/privatelink/deploy.test.ts checks the committed files against this output.
 *
 *   node --import tsx bin/privatelink-deploy.ts        # rewrites deploy/privatelink/standalone/{00-crds,deployment}.json
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

type Obj = Record<string, unknown>;

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const PRIVATELINK_DEPLOY_DIR = join(ROOT, 'deploy/privatelink');
export const STANDALONE_DIR = join(PRIVATELINK_DEPLOY_DIR, 'standalone');
const HIVE_CRDS = join(ROOT, 'test/support/crds/hive');
/** The ones the controller reads or writes, in the order a reader expects them. */
const CRD_NAMES = ['clusterdeployments', 'clusterprovisions', 'clusterdeprovisions', 'hiveconfigs'].map((p) => `${p}.hive.openshift.io`);

/** The admission server of the standalone variant: listen address, certificate from cert-manager's Secret. */
export const ADMISSION = { port: 9443, certDir: '/tls', secretName: 'hostwarden-privatelink-tls' } as const;

function readJson(file: string): Obj {
  return JSON.parse(readFileSync(file, 'utf8')) as Obj;
}

export function standaloneCrds(): Obj {
  const items = CRD_NAMES.map((name) => {
    const crd = readJson(join(HIVE_CRDS, `${name}.json`));
    const meta = crd['metadata'] as { annotations?: Record<string, string> };
    const source = meta.annotations?.['hostwarden.test/source'] ?? 'openshift/hive config/crds';
    return {
      apiVersion: crd['apiVersion'],
      kind: crd['kind'],
      metadata: {
        name,
        labels: { 'app.kubernetes.io/part-of': 'hostwarden', 'app.kubernetes.io/component': 'crd' },
        annotations: {
          'hostwarden.io/source': `${source} (descriptions dropped); do not apply where hive-operator manages this CRD`,
        },
      },
      spec: crd['spec'],
    };
  });
  return { apiVersion: 'v1', kind: 'List', items };
}

/** The default Deployment plus the admission server. */
export function standaloneDeployment(): Obj {
  const deployment = readJson(join(PRIVATELINK_DEPLOY_DIR, 'deployment.json'));
  const pod = (deployment['spec'] as { template: { spec: Obj } }).template.spec;
  const container = (pod['containers'] as Obj[])[0]!;
  container['args'] = [
    ...(container['args'] as string[]),
    `--privatelink-admission-listen=:${ADMISSION.port}`,
    `--tls-cert-file=${ADMISSION.certDir}/tls.crt`,
    `--tls-private-key-file=${ADMISSION.certDir}/tls.key`,
  ];
  container['ports'] = [...(container['ports'] as Obj[]), { name: 'https', containerPort: ADMISSION.port, protocol: 'TCP' }];
  container['volumeMounts'] = [...(container['volumeMounts'] as Obj[]), { name: 'tls', mountPath: ADMISSION.certDir, readOnly: true }];
  pod['volumes'] = [...(pod['volumes'] as Obj[]), { name: 'tls', secret: { secretName: ADMISSION.secretName } }];
  return deployment;
}

export function standaloneFiles(): Map<string, string> {
  const text = (o: Obj): string => `${JSON.stringify(o, null, 2)}\n`;
  return new Map([
    [join(STANDALONE_DIR, '00-crds.json'), text(standaloneCrds())],
    [join(STANDALONE_DIR, 'deployment.json'), text(standaloneDeployment())],
  ]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [file, content] of standaloneFiles()) {
    writeFileSync(file, content);
    process.stdout.write(`${file}\n`);
  }
}
