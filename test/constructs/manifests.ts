/**
 * Shapes of the synthesized children as far as the construct tests look into them, and the questions
 * a user would ask of them: which object is this, does this selector reach those pods.
 */
import { stringify } from 'yaml';
import { SpecError, type Manifest } from '../../constructs';

export type Labels = Record<string, string>;

export interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: { name?: string; containerPort: number; protocol?: string }[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}

export interface Deployment extends Manifest {
  spec: {
    replicas: number;
    selector: { matchLabels?: Labels; matchExpressions?: unknown[] };
    template: {
      metadata: { labels?: Labels; annotations?: Record<string, string> };
      spec: { containers: Container[]; volumes?: { name: string; configMap?: { name: string } }[] };
    };
  };
}

export interface ServicePort {
  name?: string;
  protocol?: string;
  port: number;
  targetPort?: number | string;
}

export interface Service extends Manifest {
  spec: { type?: string; selector?: Labels; ports: ServicePort[] };
}

export interface ConfigMap extends Manifest {
  data: Record<string, string>;
}

export interface RuntimeClass extends Manifest {
  handler: string;
  scheduling?: {
    nodeSelector?: Labels;
    tolerations?: { key: string; operator: string; value?: string; effect: string }[];
  };
}

/** `Kind/name` of every manifest, in output order: what `kubectl get` would list. */
export function ids(manifests: Manifest[]): string[] {
  return manifests.map((m) => `${m.kind}/${m.metadata.name}`);
}

/** Every manifest of `kind`. */
export function ofKind<T extends Manifest>(manifests: Manifest[], kind: string): T[] {
  return manifests.filter((m) => m.kind === kind) as T[];
}

/** The manifest of `kind` named `name`; fails the test, listing what there is, when it is missing. */
export function find<T extends Manifest>(manifests: Manifest[], kind: string, name: string): T {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`no ${kind}/${name} among ${ids(manifests).join(', ')}`);
  return found as T;
}

/**
 * Whether a Service or Deployment selector reaches pods labelled `labels`, as Kubernetes decides it. An
 * empty selector reaches nothing here: a Service without one gets no endpoints, a Deployment is invalid.
 */
export function selects(selector: Labels | undefined, labels: Labels | undefined): boolean {
  const entries = Object.entries(selector ?? {});
  return entries.length > 0 && entries.every(([key, value]) => labels?.[key] === value);
}

/** The pod template labels of a Deployment. */
export function podLabels(deployment: Deployment): Labels {
  return deployment.spec.template.metadata.labels ?? {};
}

/** The error `fn` throws, which must be a SpecError. */
export function specError(fn: () => unknown): SpecError {
  try {
    fn();
  } catch (error) {
    if (error instanceof SpecError) return error;
    throw new Error(`expected a SpecError, got ${String(error)}`);
  }
  throw new Error('expected a SpecError, nothing was thrown');
}

/** The manifests as the YAML stream `reconstruct synth` prints: what the snapshots hold. */
export function toYaml(manifests: Manifest[]): string {
  return manifests.map((m) => stringify(m, { lineWidth: 0 })).join('---\n');
}

/** A deep copy of `value` in which every object is frozen, so that any write to it throws. */
export function deepFrozen<T>(value: T): T {
  const copy = structuredClone(value);
  const freeze = (v: unknown): void => {
    if (v !== null && typeof v === 'object') {
      Object.values(v).forEach(freeze);
      Object.freeze(v);
    }
  };
  freeze(copy);
  return copy;
}
