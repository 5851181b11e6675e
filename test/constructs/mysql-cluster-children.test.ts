/** MySQL Cluster's children, field by field, and the specs it refuses. */
import { App, Chart } from 'cdk8s';
import { CREATE_ONLY_ANNOTATION, GENERATE_ANNOTATION, MysqlCluster, type Manifest } from '../../constructs';
import { GROUP_REPLICATION_FLAGS } from '../../constructs/mysql-cluster/mysql-cluster';
import { find, specError } from './manifests';
import { children, container, env, script, statefulSet, type StatefulSet } from './mysql-cluster-fixtures';

describe('MySQL Cluster', () => {
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
        ...GROUP_REPLICATION_FLAGS,
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
    const chart = new Chart(new App(), 'test');
    new MysqlCluster(chart, 'db', { name: 'orders', spec: { members: 1 } });
    const out = chart.toJson() as Manifest[];
    expect(out.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'Secret/orders-root-password',
      'Service/orders',
      'StatefulSet/orders',
    ]);
    expect((out[2] as StatefulSet).spec.replicas).toBe(1);
  });
});
