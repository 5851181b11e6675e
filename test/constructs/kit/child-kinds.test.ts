/**
 * A child of a kind the definition does not list: refused by `synthesize`, so that the offline renderer
 * and the controller say the same thing about it (a problem offline, Ready=False in the controller).
 */
import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { CONFIG_MAP, defineKind, synthesize, type ResourceProps } from '../../../constructs/kit';
import { ChildError } from '../../../constructs/kit/child-kinds';
import { formatProblem } from '../../../synth/problem';
import { renderResources } from '../../../synth/render';
import { InMemoryCluster } from '../../../testing';

interface MigratingSpec {
  migrate?: boolean;
}

/** A ConfigMap always, and with `migrate` a Job its definition forgot to list. */
class Migrating extends Construct {
  constructor(scope: Construct, id: string, { name, spec }: ResourceProps<MigratingSpec>) {
    super(scope, id);
    new ApiObject(this, 'config', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
    if (spec.migrate) {
      new ApiObject(this, 'migrate', {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: `${name}-migrate` },
        spec: {
          template: { spec: { restartPolicy: 'Never', containers: [{ name: 'm', image: 'busybox' }] } },
        },
      });
    }
  }
}

const migratingKind = defineKind<MigratingSpec>({
  apiVersion: 'migrations.example.com/v1',
  kind: 'Migrating',
  plural: 'migratings',
  schema: {
    description: 'Migrates.',
    spec: { type: 'object', properties: { migrate: { type: 'boolean' } } },
  },
  construct: Migrating,
  children: [CONFIG_MAP],
});

const resource = (migrate: boolean) => ({
  apiVersion: 'migrations.example.com/v1',
  kind: 'Migrating',
  metadata: { name: 'docs', namespace: 'web' },
  spec: { migrate },
});

const MESSAGE =
  "Migrating synthesized a batch/v1 Job, which its definition's children do not list (they are: v1 ConfigMap)";

describe('a child of a kind the definition does not list', () => {
  it('is refused by synthesize, naming the child', () => {
    expect(synthesize(migratingKind, resource(false)).map((c) => c.kind)).toEqual(['ConfigMap']);
    let error: unknown;
    try {
      synthesize(migratingKind, resource(true));
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ChildError);
    expect((error as ChildError).child).toBe('Job docs-migrate');
    expect((error as ChildError).message).toBe(`Job docs-migrate: ${MESSAGE}`);
  });

  it('is a problem offline naming file, resource and child, and the other resources render', () => {
    const { problems, rendered } = renderResources(
      [resource(true), { ...resource(false), metadata: { name: 'blog', namespace: 'web' } }],
      { kinds: [migratingKind], source: 'samples/migrating.yaml' },
    );
    expect(rendered.map((r) => r.resource.metadata.name)).toEqual(['blog']);
    expect(problems.map(formatProblem)).toEqual([
      `samples/migrating.yaml: Migrating/web/docs: Job docs-migrate: ${MESSAGE}`,
    ]);
  });

  it('in the controller, makes the resource Ready=False with the same words, and nothing is applied', async () => {
    const cluster = new InMemoryCluster([migratingKind]);
    cluster.putResource(migratingKind, 'docs', { migrate: true }, 'web');
    expect(await cluster.reconcile(migratingKind, 'web', 'docs')).toEqual({});
    expect(cluster.takeWrites().map((w) => w.verb)).toEqual(['status']);
    expect(cluster.ready(migratingKind, 'web', 'docs')).toMatchObject({
      status: 'False',
      reason: 'InvalidSpec',
      message: `Job docs-migrate: ${MESSAGE}`,
    });
  });
});
