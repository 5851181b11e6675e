/**
 * Offline admission against the DatabaseManager CRD. Every expected error below is what kube-apiserver v1.36
 * answered to the same object on a server-side dry run (`details.causes`), except where a comment says
 * why ours differs.
 */
import { databaseManagerKind } from '../../../constructs';
import { validateResource } from '../../../constructs/kit/validate';
import { RULES_NOT_CHECKED, errorsOf, resource } from './validate-fixtures';

const { crd: databaseManagerCrd } = databaseManagerKind;

describe('DatabaseManager', () => {
  const dm = (spec: unknown) => resource(databaseManagerCrd, spec);

  it('admits an empty spec and defaults dbtype and replicas', () => {
    const { object, errors } = validateResource(databaseManagerCrd, dm({}));
    expect(errors).toEqual([]);
    expect(object.spec).toEqual({ dbtype: 'mysql', replicas: 1 });
  });

  it('defaults inside a nested object that is present', () => {
    const { object, errors } = validateResource(
      databaseManagerCrd,
      dm({ rootPasswordSecret: { name: 'root' } }),
    );
    expect(errors).toEqual([]);
    expect(object.spec).toEqual({
      dbtype: 'mysql',
      replicas: 1,
      rootPasswordSecret: { name: 'root', key: 'password' },
    });
  });

  it('rejects dbtype postgres, and says the CEL rules were not checked', () => {
    expect(errorsOf(databaseManagerCrd, dm({ dbtype: 'postgres' }))).toEqual([
      {
        field: 'spec.dbtype',
        message: 'Unsupported value: "postgres": supported values: "mysql", "mariadb"',
      },
      RULES_NOT_CHECKED,
    ]);
  });

  it('rejects 11 and 0 replicas', () => {
    expect(errorsOf(databaseManagerCrd, dm({ replicas: 11 }))).toEqual([
      {
        field: 'spec.replicas',
        message: 'Invalid value: 11: spec.replicas in body should be less than or equal to 10',
      },
    ]);
    expect(errorsOf(databaseManagerCrd, dm({ replicas: 0 }))).toEqual([
      {
        field: 'spec.replicas',
        message: 'Invalid value: 0: spec.replicas in body should be greater than or equal to 1',
      },
    ]);
  });

  it('rejects a deploymentName that is not a DNS label', () => {
    expect(errorsOf(databaseManagerCrd, dm({ deploymentName: 'Bad_Name' }))).toEqual([
      {
        field: 'spec.deploymentName',
        message:
          'Invalid value: "Bad_Name": spec.deploymentName in body should match \'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$\'',
      },
    ]);
  });

  it('requires the secret name once rootPasswordSecret is given', () => {
    expect(errorsOf(databaseManagerCrd, dm({ rootPasswordSecret: {} }))).toEqual([
      { field: 'spec.rootPasswordSecret.name', message: 'Required value' },
      RULES_NOT_CHECKED,
    ]);
  });
});
