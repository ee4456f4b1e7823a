/**
 * The one part of @kubernetes/client-node that Hostwarden runs: KubeConfig (kubeconfig files,
 * in-cluster configuration, client certificates, tokens, exec and OIDC plugins). Requests and
 * watches go through our own client (client.ts).
 *
 * `npm run build` replaces the compiled copy of this file with a bundle of KubeConfig and what it
 * really uses (bin/build.ts). Importing the package root loads its 2,500 generated API modules:
 * about 60 MB more RSS and 0.7 s more start-up for code that is never called.
 */
export { KubeConfig } from '@kubernetes/client-node';
