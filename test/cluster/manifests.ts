/**
 * Shapes of the objects the cluster tests read, and the repository's crds/ and samples/ read
 * through `kubectl create --dry-run=client -o json` (so the tests need no YAML parser).
 */
import { builtinKinds } from '../../constructs';
import { sample } from '../fixtures/resources';
import * as fs from 'fs';
import * as path from 'path';
import { kubectl } from '../support/kubectl';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const CRD_DIR = path.join(REPO_ROOT, 'crds');
export const SAMPLES_DIR = path.join(REPO_ROOT, 'samples');

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  labels?: Record<string, string>;
  [key: string]: unknown;
}

/** Any Kubernetes object, as far as these tests look into it. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: Record<string, unknown>;
  status?: { conditions?: Condition[]; phase?: string; [key: string]: unknown };
}

export interface List<T> {
  items: T[];
}

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  priority?: number;
}

export interface Crd {
  apiVersion: string;
  kind: 'CustomResourceDefinition';
  metadata: ObjectMeta;
  spec: {
    group: string;
    scope: 'Namespaced' | 'Cluster';
    names: { kind: string; plural: string; singular?: string; shortNames?: string[] };
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      additionalPrinterColumns?: PrinterColumn[];
    }[];
  };
  status?: { conditions?: Condition[] };
}

export function yamlFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => path.join(dir, f));
}

/** Every object in a YAML (or JSON) file, parsed client-side by kubectl. */
export function readObjects(file: string): KubeObject[] {
  const out = JSON.parse(kubectl(['create', '--dry-run=client', '-o', 'json', '-f', file]).stdout) as
    KubeObject | (KubeObject & List<KubeObject>);
  return out.kind === 'List' ? (out as List<KubeObject>).items : [out];
}

/** Every CustomResourceDefinition in crds/. */
export function crdsInRepo(): Crd[] {
  return yamlFiles(CRD_DIR)
    .flatMap(readObjects)
    .filter((o): o is KubeObject & Crd => o.kind === 'CustomResourceDefinition');
}

/** The CRD's storage version (the one `kubectl get` shows). */
export function storageVersion(crd: Crd): Crd['spec']['versions'][number] {
  return crd.spec.versions.find((v) => v.storage) ?? crd.spec.versions[0];
}

/** Every object in samples/*.yaml, with the file it came from. */
export function samplesInRepo(): { file: string; obj: KubeObject }[] {
  return yamlFiles(SAMPLES_DIR).flatMap((file) =>
    readObjects(file).map((obj) => ({ file: path.relative(REPO_ROOT, file), obj })),
  );
}

/** The built-in kinds, each with a valid spec (its sample's). */
export const KINDS: Record<
  string,
  { apiVersion: string; resource: string; namespaced: boolean; spec: unknown }
> = Object.fromEntries(
  builtinKinds.map((k) => [
    k.kind,
    {
      apiVersion: k.apiVersion,
      resource: k.crd.metadata.name,
      namespaced: k.namespaced,
      spec: sample(k).spec,
    },
  ]),
);

export type KindName = string;

/** A manifest of KIND named NAME with the given spec, as JSON text for `kubectl -f -`. */
export function manifest(kind: KindName, name: string, spec: unknown): string {
  return JSON.stringify({ apiVersion: KINDS[kind].apiVersion, kind, metadata: { name }, spec });
}
