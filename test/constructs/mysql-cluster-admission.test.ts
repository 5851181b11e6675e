/** A MySQL Cluster offline, checked as the API server admits it. */
import { mysqlClusterKind } from '../../constructs';
import { renderResources } from '../../synth/render';
import { validateResource } from '../../constructs/kit/validate';
import { ids } from './manifests';

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
    expect(problems.map((p) => `${p.field}: ${p.message}`)).toContain(
      'metadata.name: Invalid value: must be at most 28 characters: the names of its children are made from it',
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
