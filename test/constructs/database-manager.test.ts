import { databaseManagerKind, type DatabaseManagerSpec } from '../../constructs';
import { databaseManager, sample, synthesize } from '../fixtures/resources';
import { Deployment, ids, ofKind, podLabels, selects, specError, toYaml } from './manifests';

/** The one Deployment of a DatabaseManager named `name`. */
function deploymentOf(spec: DatabaseManagerSpec, name = 'orders'): Deployment {
  const out = synthesize(databaseManager(name, spec, 'shop'));
  expect(out).toHaveLength(1);
  return ofKind<Deployment>(out, 'Deployment')[0];
}

describe('DatabaseManager', () => {
  describe('snapshots', () => {
    it('renders the seed sample', () => {
      expect(toYaml(synthesize(sample(databaseManagerKind)))).toMatchSnapshot();
    });

    it('renders three MariaDB pods whose root password is in a Secret', () => {
      const spec: DatabaseManagerSpec = {
        dbtype: 'mariadb',
        replicas: 3,
        rootPasswordSecret: { name: 'orders-root', key: 'root-password' },
      };
      expect(toYaml(synthesize(databaseManager('orders', spec, 'shop')))).toMatchSnapshot();
    });
  });

  it('names the Deployment spec.deploymentName', () => {
    expect(ids(synthesize(sample(databaseManagerKind)))).toEqual(['Deployment/mysql']);
  });

  it('names the Deployment like the resource when spec.deploymentName is absent', () => {
    expect(deploymentOf({}, 'orders').metadata.name).toBe('orders');
  });

  it.each([
    ['mysql', 'mysql:5.7', 'MYSQL'],
    ['mariadb', 'mariadb:10.7.1', 'MARIADB'],
  ] as const)('runs %s from %s, container named after it, on 3306', (dbtype, image, prefix) => {
    const [container] = deploymentOf({ dbtype }).spec.template.spec.containers;
    expect(container.name).toBe(dbtype);
    expect(container.image).toBe(image);
    expect(container.ports?.map((p) => p.containerPort)).toEqual([3306]);
    expect(container.env).toEqual([{ name: `${prefix}_RANDOM_ROOT_PASSWORD`, value: 'yes' }]);
  });

  it('runs mysql when spec.dbtype is absent', () => {
    expect(deploymentOf({}).spec.template.spec.containers).toEqual([
      expect.objectContaining({ name: 'mysql', image: 'mysql:5.7' }),
    ]);
  });

  it.each([
    ['mysql', 'MYSQL_ROOT_PASSWORD'],
    ['mariadb', 'MARIADB_ROOT_PASSWORD'],
  ] as const)('%s reads the root password from spec.rootPasswordSecret', (dbtype, variable) => {
    const [container] = deploymentOf({ dbtype, rootPasswordSecret: { name: 'db-root', key: 'pw' } }).spec
      .template.spec.containers;
    expect(container.env).toEqual([
      { name: variable, valueFrom: { secretKeyRef: { name: 'db-root', key: 'pw' } } },
    ]);
  });

  it('reads the key "password" of the Secret when spec.rootPasswordSecret.key is absent', () => {
    const [container] = deploymentOf({ rootPasswordSecret: { name: 'db-root' } }).spec.template.spec
      .containers;
    expect(container.env?.[0].valueFrom?.secretKeyRef).toEqual({ name: 'db-root', key: 'password' });
  });

  it('never puts a literal root password in the pod', () => {
    for (const spec of [{}, { dbtype: 'mariadb' as const }, { rootPasswordSecret: { name: 's' } }]) {
      const env = deploymentOf(spec).spec.template.spec.containers[0].env ?? [];
      const literal = env.filter(
        (e) => /^(MYSQL|MARIADB)_ROOT_PASSWORD$/.test(e.name) && e.value !== undefined,
      );
      expect(literal).toEqual([]);
    }
  });

  it('runs one replica by default and spec.replicas otherwise', () => {
    expect(deploymentOf({}).spec.replicas).toBe(1);
    expect(deploymentOf({ replicas: 10 }).spec.replicas).toBe(10);
  });

  it("selects its own pods with the Deployment's selector", () => {
    const deployment = deploymentOf({ dbtype: 'mariadb', deploymentName: 'orders-db' });
    expect(selects(deployment.spec.selector.matchLabels, podLabels(deployment))).toBe(true);
  });

  it('keeps the selector when spec.dbtype changes, so the same Deployment rolls to the new image', () => {
    const mysql = deploymentOf({ dbtype: 'mysql' });
    const mariadb = deploymentOf({ dbtype: 'mariadb' });
    expect(mariadb.metadata.name).toBe(mysql.metadata.name);
    expect(mariadb.spec.selector).toEqual(mysql.spec.selector);
    expect(selects(mysql.spec.selector.matchLabels, podLabels(mariadb))).toBe(true);
  });

  it("does not reach another DatabaseManager's pods", () => {
    const a = deploymentOf({}, 'a');
    const b = deploymentOf({}, 'b');
    expect(selects(a.spec.selector.matchLabels, podLabels(b))).toBe(false);
  });

  describe('rejects', () => {
    // In the API server's words, as `kubectl apply` of the resource would print them.
    it.each([
      [0, 'Invalid value: 0: spec.replicas in body should be greater than or equal to 1'],
      [11, 'Invalid value: 11: spec.replicas in body should be less than or equal to 10'],
      [2.5, 'Invalid value: "float64": spec.replicas in body must be of type int32: "float64"'],
    ])('spec.replicas = %p', (replicas, detail) => {
      const error = specError(() => synthesize(databaseManager('orders', { replicas })));
      expect(error.field).toBe('spec.replicas');
      expect(error.detail.split('; ')[0]).toBe(detail);
    });

    it('an unknown spec.dbtype', () => {
      // What a YAML file can say and the generated type cannot.
      const spec = JSON.parse('{ "dbtype": "postgres" }') as DatabaseManagerSpec;
      const error = specError(() => synthesize(databaseManager('orders', spec)));
      expect(error.field).toBe('spec.dbtype');
      expect(error.message).toContain('postgres');
    });

    it('a spec.deploymentName that cannot name a Deployment', () => {
      const error = specError(() => synthesize(databaseManager('orders', { deploymentName: 'Orders_DB' })));
      expect(error.field).toBe('spec.deploymentName');
      expect(error.message).toContain('Orders_DB');
    });
  });
});
