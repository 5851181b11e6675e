import { Testing } from 'cdk8s';
import {
  CREATE_ONLY_ANNOTATION,
  GENERATE_ANNOTATION,
  MysqlCluster,
  mysqlClusterKind,
  type Manifest,
  type MysqlClusterSpec,
} from '../../constructs';
import { replicationGroupSeeds } from '../../constructs/mysql-cluster/mysql-cluster';
import { renderResources } from '../../synth/render';
import { validateResource } from '../../constructs/kit/validate';
import { resource, sample, synthesize } from '../fixtures/resources';
import { find, ids, specError, toYaml } from './manifests';

interface Container {
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

interface StatefulSet extends Manifest {
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

const cluster = (spec: MysqlClusterSpec = {}, name = 'mysql') => resource(mysqlClusterKind, name, spec, 'db');
const children = (spec: MysqlClusterSpec = {}, name = 'mysql') => synthesize(cluster(spec, name));
const statefulSet = (spec: MysqlClusterSpec = {}, name = 'mysql') =>
  find<StatefulSet>(children(spec, name), 'StatefulSet', name);
const container = (spec: MysqlClusterSpec, name: 'mysql' | 'mysql-agent') =>
  statefulSet(spec).spec.template.spec.containers.find((c) => c.name === name)!;
const env = (c: Container, variable: string) => c.env?.find((e) => e.name === variable);
const script = (spec: MysqlClusterSpec = {}) => container(spec, 'mysql').command![2];

const claim = (name: string) => ({
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce' as const], resources: { requests: { storage: '1Gi' } } },
});

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

  describe('children', () => {
    it('creates the Secret once, with a generated 16-character password', () => {
      const secret = find(children(), 'Secret', 'mysql-root-password');
      expect(secret.metadata.annotations).toMatchObject({
        [CREATE_ONLY_ANNOTATION]: 'true',
        [GENERATE_ANNOTATION]: '/stringData/password=alphanumeric(16)',
      });
      // No value in the rendered object: the controller makes it when it creates the Secret.
      expect(secret.stringData).toBeUndefined();
      expect(secret.data).toBeUndefined();
    });

    it('makes the Service headless, on 3306, selecting the members, ready or not', () => {
      expect(find(children(), 'Service', 'mysql').spec).toEqual({
        clusterIP: 'None',
        ports: [{ name: 'mysql', port: 3306, targetPort: 3306, protocol: 'TCP' }],
        selector: { 'v1alpha1.mysql.oracle.com/cluster': 'mysql' },
        publishNotReadyAddresses: true,
      });
    });

    it('labels every child with the cluster label', () => {
      for (const child of children()) {
        expect(child.metadata.labels).toMatchObject({ 'v1alpha1.mysql.oracle.com/cluster': 'mysql' });
      }
    });

    it('rolls members one by one, keeps their claims, and selects them by the cluster label', () => {
      const { spec } = statefulSet();
      expect(spec.serviceName).toBe('mysql');
      expect(spec.updateStrategy).toEqual({ type: 'RollingUpdate' });
      expect(spec.persistentVolumeClaimRetentionPolicy).toEqual({
        whenDeleted: 'Retain',
        whenScaled: 'Retain',
      });
      expect(spec.selector.matchLabels).toEqual({ 'v1alpha1.mysql.oracle.com/cluster': 'mysql' });
      expect(spec.template.metadata.annotations).toEqual({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': '8080',
      });
    });

    it('labels members primary only in a multi-master cluster, and tells the agent', () => {
      expect(statefulSet().spec.template.metadata.labels).toEqual({
        'v1alpha1.mysql.oracle.com/cluster': 'mysql',
      });
      expect(statefulSet({ multiMaster: true }).spec.template.metadata.labels).toEqual({
        'v1alpha1.mysql.oracle.com/cluster': 'mysql',
        'v1alpha1.mysql.oracle.com/role': 'primary',
      });
      expect(env(container({ multiMaster: true }, 'mysql-agent'), 'MYSQL_CLUSTER_MULTI_MASTER')?.value).toBe(
        'true',
      );
      expect(env(container({}, 'mysql-agent'), 'MYSQL_CLUSTER_MULTI_MASTER')?.value).toBe('false');
    });

    it('computes the server id from the ordinal and starts mysqld with the group replication flags', () => {
      const server = container({ baseServerId: 7 }, 'mysql');
      expect(server.command?.slice(0, 2)).toEqual(['/bin/bash', '-ecx']);
      const lines = server.command![2].split('\n');
      expect(lines[0]).toBe('base=7');
      expect(lines[1]).toBe("index=$(cat /etc/hostname | grep -o '[^-]*$')");
      for (const flag of [
        '--server_id=$(expr $base + $index)',
        '--datadir=/var/lib/mysql',
        '--gtid_mode=ON',
        '--log-bin',
        '--binlog_checksum=NONE',
        '--enforce_gtid_consistency=ON',
        '--log-slave-updates=ON',
        '--binlog-format=ROW',
        '--master-info-repository=TABLE',
        '--relay-log-info-repository=TABLE',
        '--transaction-write-set-extraction=XXHASH64',
        '--relay-log=mysql-${index}-relay-bin',
        '--report-host=mysql-${index}.mysql',
        '--log-error-verbosity=3',
      ]) {
        expect(`${lines[2]} `).toContain(` ${flag} `);
      }
      expect(lines[2].startsWith('/entrypoint.sh ')).toBe(true);
      expect(server.env?.map((e) => e.name)).toEqual([
        'MYSQL_ROOT_PASSWORD',
        'MYSQL_ROOT_HOST',
        'MYSQL_LOG_CONSOLE',
      ]);
      expect(env(server, 'MYSQL_ROOT_HOST')?.value).toBe('%');
      expect(server.ports).toEqual([{ name: 'mysql', containerPort: 3306 }]);
    });

    it('adds the TLS flags and mounts when sslSecret is set, and my.cnf when config is', () => {
      const spec = { sslSecret: { name: 'tls' }, config: { name: 'conf' } };
      const flags = script(spec);
      for (const f of [
        '--ssl-ca=/etc/ssl/mysql/ca.crt',
        '--ssl-cert=/etc/ssl/mysql/tls.crt',
        '--ssl-key=/etc/ssl/mysql/tls.key',
      ])
        expect(flags).toContain(f);
      expect(script()).not.toContain('--ssl-');
      expect(container(spec, 'mysql').volumeMounts).toEqual(
        expect.arrayContaining([
          { name: 'mysqlconfig', mountPath: '/etc/my.cnf', subPath: 'my.cnf' },
          { name: 'mysqlsslvolume', mountPath: '/etc/ssl/mysql' },
        ]),
      );
    });

    it('runs the agent with its image, flags, environment and health probes', () => {
      const agent = container({ agentImage: 'example.com/agent:1' }, 'mysql-agent');
      expect(agent.image).toBe('example.com/agent:1');
      expect(container({}, 'mysql-agent').image).toBe('iad.ocir.io/oracle/mysql-agent:0.3.0');
      expect(agent.args).toEqual(['--v=4']);
      expect(agent.env?.map((e) => e.name)).toEqual([
        'MYSQL_CLUSTER_NAME',
        'POD_NAMESPACE',
        'MY_POD_IP',
        'REPLICATION_GROUP_SEEDS',
        'MYSQL_CLUSTER_MULTI_MASTER',
        'MYSQL_ROOT_PASSWORD',
      ]);
      expect(env(agent, 'MY_POD_IP')?.valueFrom).toEqual({ fieldRef: { fieldPath: 'status.podIP' } });
      expect(agent.livenessProbe).toEqual({ httpGet: { path: '/live', port: 10512 } });
      expect(agent.readinessProbe).toEqual({ httpGet: { path: '/ready', port: 10512 } });
    });
  });

  describe('refuses what it cannot run, naming the field', () => {
    it.each([
      [
        { version: '8.0.10' },
        'spec.version',
        'Invalid value: "8.0.10": minimum supported MySQL version is 8.0.11',
      ],
      [
        { version: '5.7.22' },
        'spec.version',
        'Invalid value: "5.7.22": minimum supported MySQL version is 8.0.11',
      ],
      [{ members: 10 }, 'spec.members', 'Invalid value: 10: InnoDB clustering supports between 1-9 members'],
      [{ members: 0 }, 'spec.members', 'Invalid value: 0: InnoDB clustering supports between 1-9 members'],
    ])('%j', (spec, field, message) => {
      const err = specError(() => children(spec));
      expect(err.field).toBe(field);
      expect(err.detail).toBe(message);
    });

    it('a name longer than 28 characters (MySQL bug 90601)', () => {
      expect(() => children({}, 'a'.repeat(28))).not.toThrow();
      expect(specError(() => children({}, 'a'.repeat(29))).field).toBe('metadata.name');
    });
  });

  it('renders inline in a cdk8s chart', () => {
    const chart = Testing.chart();
    new MysqlCluster(chart, 'db', { name: 'orders', spec: { members: 1 } });
    const out = Testing.synth(chart) as Manifest[];
    expect(out.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'Secret/orders-root-password',
      'Service/orders',
      'StatefulSet/orders',
    ]);
    expect((out[2] as StatefulSet).spec.replicas).toBe(1);
  });
});

describe('offline, as the API server admits it', () => {
  const file = (resources: object[]) => resources.map((r) => JSON.stringify(r)).join('\n---\n');
  const named = (name: string, spec: object) => ({
    apiVersion: 'mysql.oracle.com/v1alpha1',
    kind: 'Cluster',
    metadata: { name, namespace: 'db' },
    spec,
  });

  it.each([
    [
      { version: '8.0.10' },
      'spec.version: Invalid value: "8.0.10": minimum supported MySQL version is 8.0.11',
    ],
    [{ members: 10 }, 'spec.members: Invalid value: 10: InnoDB clustering supports between 1-9 members'],
    [{ members: 0 }, 'spec.members: Invalid value: 0: InnoDB clustering supports between 1-9 members'],
    [
      { version: 'latest' },
      'spec.version: Invalid value: "latest": spec.version in body should match \'^[0-9]+\\.[0-9]+\\.[0-9]+$\'',
    ],
  ])('refuses %j naming the field', (spec, message) => {
    const { problems } = renderResources(file([named('bad', spec)]), { kinds: [mysqlClusterKind] });
    expect(problems.map((p) => `${p.field}: ${p.message}`)).toContain(message);
  });

  it('refuses a name longer than 28 characters, naming metadata.name', () => {
    const { problems } = renderResources(file([named('a'.repeat(29), {})]), { kinds: [mysqlClusterKind] });
    expect(problems.map((p) => p.message).join('\n')).toMatch(
      /metadata\.name must be at most 28 characters: the names of its children are made from it/,
    );
  });

  it('refuses a downgrade when the stored object is known (an update), naming both versions', () => {
    const old = named('mysql', { version: '8.0.13' });
    const { errors } = validateResource(mysqlClusterKind.crd, named('mysql', { version: '8.0.12' }), { old });
    expect(errors).toEqual([
      {
        field: 'spec.version',
        message: 'Invalid value: "8.0.12": unsupported downgrade from 8.0.13 to 8.0.12',
      },
    ]);
    expect(validateResource(mysqlClusterKind.crd, named('mysql', { version: '8.0.12' })).errors).toEqual([]);
  });

  it('renders the valid Clusters of a file beside an invalid one', () => {
    const { problems, manifests } = renderResources(
      file([named('one', {}), named('bad', { members: 12 }), named('two', { members: 1 })]),
      { kinds: [mysqlClusterKind] },
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ resource: 'Cluster/db/bad', field: 'spec.members' });
    expect(ids(manifests)).toEqual(['Service/one', 'StatefulSet/one', 'Service/two', 'StatefulSet/two']);
  });
});
