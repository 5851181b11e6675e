/** MySQL Cluster: snapshots of its output, and the seed's unit cases. */
import { mysqlClusterKind, type MysqlClusterSpec } from '../../constructs';
import { replicationGroupSeeds } from '../../constructs/mysql-cluster/mysql-cluster';
import { sample, synthesize } from '../fixtures/resources';
import { ids, toYaml } from './manifests';
import { children, claim, container, env, script, statefulSet } from './mysql-cluster-fixtures';

describe('MySQL Cluster', () => {
  describe('snapshots', () => {
    it('renders the sample (an empty spec: three members of 8.0.12)', () => {
      expect(toYaml(synthesize(sample(mysqlClusterKind)))).toMatchSnapshot();
    });

    it('renders a cluster with claims, config, TLS, its own password and pod placement', () => {
      const spec: MysqlClusterSpec = {
        members: 5,
        version: '8.0.13',
        multiMaster: true,
        volumeClaimTemplate: claim('data'),
        backupVolumeClaimTemplate: claim('backup'),
        config: { name: 'mysql-conf' },
        sslSecret: { name: 'mysql-tls' },
        rootPasswordSecret: { name: 'mysql-root' },
        nodeSelector: { disk: 'ssd' },
      };
      expect(toYaml(children(spec))).toMatchSnapshot();
    });
  });

  describe('the seed’s unit cases', () => {
    it('defaults to 3 members, base server id 1000 and MySQL 8.0.12', () => {
      const sts = statefulSet();
      expect(sts.spec.replicas).toBe(3);
      expect(script()).toContain('base=1000\n');
      expect(container({}, 'mysql').image).toBe('mysql/mysql-server:8.0.12');
    });

    it('names the generated Secret <name>-root-password, or uses the one the spec names', () => {
      expect(ids(children())).toEqual(['Secret/mysql-root-password', 'Service/mysql', 'StatefulSet/mysql']);
      const ref = { secretKeyRef: { name: 'mysql-root-password', key: 'password' } };
      expect(env(container({}, 'mysql'), 'MYSQL_ROOT_PASSWORD')?.valueFrom).toEqual(ref);
      expect(env(container({}, 'mysql-agent'), 'MYSQL_ROOT_PASSWORD')?.valueFrom).toEqual(ref);

      const own = { rootPasswordSecret: { name: 'mine' } };
      expect(ids(children(own))).toEqual(['Service/mysql', 'StatefulSet/mysql']);
      expect(env(container(own, 'mysql'), 'MYSQL_ROOT_PASSWORD')?.valueFrom).toEqual({
        secretKeyRef: { name: 'mine', key: 'password' },
      });
    });

    it('gives emptyDir volumes without claim templates, and none with both', () => {
      expect(statefulSet().spec.template.spec.volumes).toEqual([
        { name: 'mysqlvolume', emptyDir: {} },
        { name: 'mysqlbackupvolume', emptyDir: {} },
      ]);
      expect(statefulSet().spec.volumeClaimTemplates).toBeUndefined();
      const both = statefulSet({
        volumeClaimTemplate: claim('data'),
        backupVolumeClaimTemplate: claim('backup'),
      });
      expect(both.spec.template.spec.volumes).toBeUndefined();
      expect(both.spec.volumeClaimTemplates?.map((c) => c.metadata.name)).toEqual(['data', 'backup']);
      // Each container mounts the claims by their names.
      const mounts = both.spec.template.spec.containers[0].volumeMounts;
      expect(mounts).toEqual([
        { name: 'data', mountPath: '/var/lib/mysql', subPath: 'mysql' },
        { name: 'backup', mountPath: '/var/lib/mysql-agent', subPath: 'mysql' },
      ]);
      const one = statefulSet({ volumeClaimTemplate: claim('data') });
      expect(one.spec.template.spec.volumes).toEqual([{ name: 'mysqlbackupvolume', emptyDir: {} }]);
    });

    it('passes nodeSelector, affinity, securityContext, tolerations (in order) and resources through', () => {
      const tolerations = [
        { key: 'b', operator: 'Exists' as const, effect: 'NoSchedule' as const },
        {
          key: 'a',
          operator: 'Equal' as const,
          value: 'x',
          effect: 'NoExecute' as const,
          tolerationSeconds: 30,
        },
      ];
      const affinity = {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } },
      };
      const securityContext = { fsGroup: 27, runAsUser: 27 };
      const server = { requests: { cpu: '500m', memory: '1Gi' }, limits: { memory: '2Gi' } };
      const agent = { requests: { cpu: '100m' } };
      const spec: MysqlClusterSpec = {
        nodeSelector: { disk: 'ssd' },
        affinity,
        securityContext,
        tolerations,
        resources: { server, agent },
      };
      const pod = statefulSet(spec).spec.template.spec;
      expect(pod.nodeSelector).toEqual({ disk: 'ssd' });
      expect(pod.affinity).toEqual(affinity);
      expect(pod.securityContext).toEqual(securityContext);
      expect(pod.tolerations).toEqual(tolerations);
      expect(container(spec, 'mysql').resources).toEqual(server);
      expect(container(spec, 'mysql-agent').resources).toEqual(agent);
    });

    it('runs a custom repository and pulls with the given Secrets, both spellings merged', () => {
      const spec: MysqlClusterSpec = {
        repository: 'registry.example.com/mysql-server',
        imagePullSecrets: [{ name: 'regcred' }],
        imagePullSecret: [{ name: 'legacy' }, { name: 'regcred' }],
      };
      expect(container(spec, 'mysql').image).toBe('registry.example.com/mysql-server:8.0.12');
      expect(statefulSet(spec).spec.template.spec.imagePullSecrets).toEqual([
        { name: 'regcred' },
        { name: 'legacy' },
      ]);
    });

    it.each([
      ['8.0.11', false],
      ['8.0.12', true],
      ['8.0.13', true],
      ['8.1.0', true],
    ])('version %s: the exit-state flag present: %s', (version, present) => {
      expect(script({ version }).includes('--loose-group-replication-exit-state-action=READ_ONLY')).toBe(
        present,
      );
    });

    it('lists the seeds of 3 members', () => {
      expect(replicationGroupSeeds('mysql', 3)).toBe(
        'mysql-0.mysql:13306,mysql-1.mysql:13306,mysql-2.mysql:13306',
      );
      expect(env(container({}, 'mysql-agent'), 'REPLICATION_GROUP_SEEDS')?.value).toBe(
        'mysql-0.mysql:13306,mysql-1.mysql:13306,mysql-2.mysql:13306',
      );
    });
  });
});
