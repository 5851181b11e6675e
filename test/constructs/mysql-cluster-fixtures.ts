/** What the MySQL Cluster tests share: a cluster, its children, its StatefulSet's containers. */
import { mysqlClusterKind, type Manifest, type MysqlClusterSpec } from '../../constructs';
import { resource, synthesize } from '../fixtures/resources';
import { find } from './manifests';

export interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: { name: string; value?: string; valueFrom?: Record<string, unknown> }[];
  ports?: { containerPort: number }[];
  resources?: unknown;
  volumeMounts?: { name: string; mountPath: string; subPath?: string }[];
  livenessProbe?: unknown;
  readinessProbe?: unknown;
}

export interface StatefulSet extends Manifest {
  spec: {
    replicas: number;
    serviceName: string;
    selector: { matchLabels: Record<string, string> };
    updateStrategy: { type: string };
    persistentVolumeClaimRetentionPolicy: { whenDeleted: string; whenScaled: string };
    volumeClaimTemplates?: { metadata: { name: string } }[];
    template: {
      metadata: { labels: Record<string, string>; annotations: Record<string, string> };
      spec: {
        containers: Container[];
        volumes?: { name: string; emptyDir?: object; configMap?: object; secret?: object }[];
        nodeSelector?: Record<string, string>;
        affinity?: unknown;
        tolerations?: unknown[];
        securityContext?: unknown;
        imagePullSecrets?: { name: string }[];
      };
    };
  };
}

export const cluster = (spec: MysqlClusterSpec = {}, name = 'mysql') =>
  resource(mysqlClusterKind, name, spec, 'db');
export const children = (spec: MysqlClusterSpec = {}, name = 'mysql') => synthesize(cluster(spec, name));
export const statefulSet = (spec: MysqlClusterSpec = {}, name = 'mysql') =>
  find<StatefulSet>(children(spec, name), 'StatefulSet', name);
export const container = (spec: MysqlClusterSpec, name: 'mysql' | 'mysql-agent') =>
  statefulSet(spec).spec.template.spec.containers.find((c) => c.name === name)!;
export const env = (c: Container, variable: string) => c.env?.find((e) => e.name === variable);
export const script = (spec: MysqlClusterSpec = {}) => container(spec, 'mysql').command![2];

export const claim = (name: string) => ({
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce' as const], resources: { requests: { storage: '1Gi' } } },
});
