/**
 * The checks of a kind's definition: every problem at once, so one KindDefinitionError names all of them
 * when the module loads, not in a reconcile.
 */
import { isApiKind } from './api-kind';
import { externalProblems } from './external';
import { inputProblems } from './inputs/declare';
import type { KindOptions } from './kind';
import { isDns1035Label, isDns1123Subdomain, isQualifiedName } from './names';
import { permissionProblems } from './permission';
import { MAX_NAME_LENGTH } from './resource';
import { commonStatus } from './schema';
import { versionProblems } from './versions';

/** A definition that cannot work, named with what is wrong. */
export class KindDefinitionError extends Error {
  constructor(kind: string, problems: string[]) {
    super(`defineKind(${kind}): ${problems.join('; ')}`);
    this.name = 'KindDefinitionError';
  }
}

/** Every problem of a definition, so one error names all of them. */
export function problemsOf(o: KindOptions<unknown, object>): string[] {
  const problems: string[] = [];
  const need = (ok: boolean, message: string) => {
    if (!ok) problems.push(message);
  };
  const [group, version, extra] = String(o.apiVersion ?? '').split('/');
  need(
    extra === undefined && !!group && isDns1123Subdomain(group) && group.includes('.') && !!version,
    `apiVersion "${o.apiVersion ?? ''}" must be <group>/<version> with a DNS subdomain group (e.g. example.com/v1)`,
  );
  if (version)
    need(
      /^v\d+((alpha|beta)\d+)?$/.test(version),
      `version "${version}" must look like v1, v1alpha1, v2beta3`,
    );
  need(
    typeof o.kind === 'string' && /^[A-Z][A-Za-z0-9]*$/.test(o.kind),
    `kind "${o.kind ?? ''}" must be UpperCamelCase`,
  );
  need(
    typeof o.plural === 'string' && isDns1035Label(o.plural),
    `plural "${o.plural ?? ''}" must be a lower-case DNS label`,
  );
  if (o.typeName !== undefined)
    need(/^[A-Z][A-Za-z0-9]*$/.test(o.typeName), `typeName "${o.typeName}" must be UpperCamelCase`);
  if (o.singular !== undefined)
    need(isDns1035Label(o.singular), `singular "${o.singular}" must be a lower-case DNS label`);
  need(
    o.scope === undefined || o.scope === 'Namespaced' || o.scope === 'Cluster',
    `scope must be Namespaced or Cluster`,
  );
  if (o.maxNameLength !== undefined)
    need(
      Number.isInteger(o.maxNameLength) && o.maxNameLength >= 1 && o.maxNameLength <= MAX_NAME_LENGTH,
      `maxNameLength ${o.maxNameLength} must be an integer from 1 to ${MAX_NAME_LENGTH}`,
    );
  if (o.revision !== undefined)
    need(
      typeof o.revision === 'string' && /^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/.test(o.revision),
      `revision "${String(o.revision)}" must be 1 to 63 letters, digits, '.', '_' or '-', starting and ending with a letter or digit`,
    );
  for (const [field, min] of [
    ['maxInFlight', 1],
    ['failureThreshold', 1],
    ['progressDeadlineSeconds', 1],
  ] as const) {
    const value = o.rollout?.[field];
    if (value !== undefined)
      need(
        Number.isInteger(value) && value >= min,
        `rollout.${field} ${value} must be an integer of at least ${min}`,
      );
  }
  need(
    typeof o.construct === 'function' || (o.construct === undefined && o.children?.length === 0),
    'construct is missing: give the construct class',
  );
  if (!o.schema) {
    problems.push('schema is missing: give at least schema.description and schema.spec');
  } else {
    need(
      typeof o.schema.description === 'string' && o.schema.description !== '',
      'schema.description is missing',
    );
    need(o.schema.spec?.type === 'object', 'schema.spec must be an object schema (type: object)');
    for (const name of Object.keys(o.schema.status ?? {})) {
      need(
        !(name in commonStatus) && name !== 'createdChildren',
        `schema.status.${name} is added by the kit; leave it out`,
      );
    }
    const scale = o.schema.scale;
    if (scale) {
      // What the API server requires of a scale subresource's paths.
      need(
        /^\.spec\.\S+$/.test(scale.specReplicasPath ?? ''),
        'schema.scale.specReplicasPath must start with .spec.',
      );
      need(
        /^\.status\.\S+$/.test(scale.statusReplicasPath ?? ''),
        'schema.scale.statusReplicasPath must start with .status.',
      );
      if (scale.labelSelectorPath !== undefined)
        need(
          /^\.status\.\S+$/.test(scale.labelSelectorPath),
          'schema.scale.labelSelectorPath must start with .status.',
        );
    }
    for (const column of o.schema.columns ?? []) {
      need(
        column.jsonPath?.startsWith('.') ?? false,
        `schema.columns ${column.name}: jsonPath must start with "."`,
      );
    }
  }
  if (!Array.isArray(o.children) || (o.children.length === 0 && o.external === undefined)) {
    problems.push(
      'children is missing: list every kind of object the construct produces (e.g. [DEPLOYMENT]); ' +
        'a kind whose work is all outside Kubernetes (external) says []',
    );
  } else {
    o.children.forEach((child, i) =>
      need(
        isApiKind(child),
        `children[${i}] must be an ApiKind with apiVersion, kind, plural and namespaced`,
      ),
    );
  }
  (o.watches ?? []).forEach((watch, i) => {
    need(isApiKind(watch?.type), `watches[${i}].type must be an ApiKind`);
    need(
      typeof watch?.owners === 'function',
      `watches[${i}].owners is missing: say which resources an event concerns`,
    );
  });
  if (o.sync) {
    need(
      isQualifiedName(o.sync.finalizer ?? ''),
      `sync.finalizer "${o.sync.finalizer ?? ''}" must be a qualified name`,
    );
    need(typeof o.sync.plan === 'function', 'sync.plan is missing');
  }
  const isList = (v: unknown): v is readonly unknown[] => Array.isArray(v);
  if (o.permissions !== undefined && !isList(o.permissions)) {
    problems.push('permissions must be a list of { type, verbs, resourceNames?, subresource? }');
  }
  (isList(o.permissions) ? o.permissions : []).forEach((p, i) =>
    problems.push(...permissionProblems(p, `permissions[${i}]`)),
  );
  if (version) problems.push(...versionProblems(version, o.versions, o.storageVersion));
  problems.push(...externalProblems(o.external, o.scope));
  problems.push(...inputProblems(o.inputs, o.external !== undefined));
  for (const hook of ['status', 'ready'] as const) {
    need(o[hook] === undefined || typeof o[hook] === 'function', `${hook} must be a function`);
  }
  return problems;
}
