/**
 * The permissions a kind declares for its work (KindOptions.permissions), and their checks: what
 * `defineKind` refuses, named, before `reconstruct install` could grant it.
 */
import { isDns1035Label } from './names';
import { isApiKind, type ApiKind } from './api-kind';

/**
 * A permission a kind's work needs beyond what the controller derives from its definition (kubebuilder's
 * `+kubebuilder:rbac` markers, in our shape): `patch` on the nodes a sync labels, `bind` on ClusterRole
 * `admin` to hand it out in a RoleBinding child. `reconstruct install` grants exactly these besides the
 * derived rules; the derived ones never include a write on what a kind only watches.
 */
export interface KindPermission {
  /** The kind of object, e.g. `NODE`, `CLUSTER_ROLE` (or any `apiKind(...)`). */
  readonly type: ApiKind;
  /** Kubernetes verbs (`get`, `patch`, `bind`, `escalate`, ...); no `*`. */
  readonly verbs: readonly string[];
  /**
   * Only the objects of these names (RBAC's `resourceNames`), e.g. `['admin']`. Not with `create`, `list`,
   * `watch` or `deletecollection`, whose requests name no object.
   * @default - every object of the kind
   */
  readonly resourceNames?: readonly string[];
  /**
   * A subresource (`status`, `scale`) instead of the object itself.
   * @default - the object
   */
  readonly subresource?: string;
}

/** The verbs RBAC authorizes on resources (`*` is refused: name the verbs the work needs). */
export const KUBERNETES_VERBS: readonly string[] = [
  'get',
  'list',
  'watch',
  'create',
  'update',
  'patch',
  'delete',
  'deletecollection',
  'bind',
  'escalate',
  'impersonate',
  'approve',
  'sign',
  'use',
];
/** Verbs whose requests name no object, so that resourceNames would never match them. */
const UNNAMED_VERBS = ['create', 'list', 'watch', 'deletecollection'];

/** What is wrong with one declared permission, each naming `at`. */
export function permissionProblems(p: KindPermission | undefined, at: string): string[] {
  const problems: string[] = [];
  if (!isApiKind(p?.type))
    problems.push(`${at}.type must be an ApiKind (e.g. CLUSTER_ROLE, or apiKind(...))`);
  const verbs: unknown[] = Array.isArray(p?.verbs) ? p.verbs : [];
  if (verbs.length === 0) problems.push(`${at}.verbs is missing: name the verbs the work needs`);
  for (const verb of verbs) {
    if (verb === '*') problems.push(`${at}.verbs: "*" grants every verb; name the ones the work needs`);
    else if (!KUBERNETES_VERBS.includes(String(verb)))
      problems.push(
        `${at}.verbs: "${String(verb)}" is not a Kubernetes verb (${KUBERNETES_VERBS.join(', ')})`,
      );
  }
  if (p?.resourceNames !== undefined) {
    const names: unknown[] = Array.isArray(p.resourceNames) ? p.resourceNames : [];
    if (names.length === 0 || names.some((n) => typeof n !== 'string' || n === '' || n === '*')) {
      problems.push(`${at}.resourceNames must be a non-empty list of object names (leave it out for all)`);
    }
    const unnamed = verbs.filter((v) => UNNAMED_VERBS.includes(String(v)));
    if (unnamed.length > 0) {
      problems.push(
        `${at}: resourceNames cannot restrict ${unnamed.join(', ')} (the request names no object): ` +
          'declare those verbs in a permission without resourceNames',
      );
    }
  }
  if (p?.subresource !== undefined && !isDns1035Label(p.subresource)) {
    problems.push(`${at}.subresource "${p.subresource}" must be a lower-case name such as status or scale`);
  }
  return problems;
}
