/**
 * A child's name and labels as the API server checks them. A resource name the CRD accepts can make a
 * child name the API server refuses (`<name>-metrics` as a Service name over 63 characters); the
 * controller would then fail the same apply on every reconcile. Checked after synthesis, the resource
 * is refused once, naming its field, offline and in-cluster alike.
 */
import type { CustomResource, Manifest } from './resource';
import {
  DNS1035_LABEL_FORMAT,
  DNS_LABEL,
  DNS_SUBDOMAIN,
  LABEL_VALUE,
  MAX_LABEL_LENGTH,
  MAX_SUBDOMAIN_LENGTH,
} from './names';
import { SpecError } from './resource';

interface NameRule {
  readonly max: number;
  readonly pattern: RegExp;
  /** What the API server asks for, said after "the API server accepts". */
  readonly what: string;
}

const DNS_1035_LABEL: NameRule = {
  max: MAX_LABEL_LENGTH,
  pattern: new RegExp(`^${DNS1035_LABEL_FORMAT}$`),
  what: 'a DNS-1035 label: lower-case letters, digits and "-", starting with a letter',
};
const DNS_1123_LABEL: NameRule = {
  max: MAX_LABEL_LENGTH,
  pattern: new RegExp(DNS_LABEL),
  what: 'a DNS-1123 label: lower-case letters, digits and "-"',
};
const DNS_1123_SUBDOMAIN: NameRule = {
  max: MAX_SUBDOMAIN_LENGTH,
  pattern: new RegExp(DNS_SUBDOMAIN),
  what: 'a DNS-1123 subdomain: lower-case letters, digits, "-" and "."',
};
/** RBAC objects and PodDisruptionBudgets take any path segment (`system:reader`). */
const PATH_SEGMENT: NameRule = {
  max: Infinity,
  pattern: /^(?!\.\.?$)[^/%]+$/,
  what: 'a path segment: no "/" or "%", not "." or ".."',
};

/** A Job's name is the value of its pods' `job-name` and `batch.kubernetes.io/job-name` labels. */
const JOB_NAME: NameRule = {
  max: MAX_LABEL_LENGTH,
  pattern: DNS_1123_SUBDOMAIN.pattern,
  what: "a DNS-1123 subdomain that fits a label value: it is the value of the pods' job-name label",
};
/** A CronJob's Jobs are named `<name>-<11 characters>`, which must fit a label value too. */
const CRON_JOB_NAME: NameRule = {
  max: 52,
  pattern: DNS_1123_SUBDOMAIN.pattern,
  what: 'a DNS-1123 subdomain of at most 52 characters: its Jobs are named after it',
};

/** The name rules of the kinds that differ from the rule of most: a DNS-1123 subdomain. */
const NAME_RULES: Record<string, NameRule> = {
  'apps/v1 StatefulSet': DNS_1123_LABEL,
  'policy/v1 PodDisruptionBudget': PATH_SEGMENT,
  'batch/v1 Job': JOB_NAME,
  'batch/v1 CronJob': CRON_JOB_NAME,
  'v1 Service': DNS_1035_LABEL,
  'v1 Namespace': DNS_1123_LABEL,
  'rbac.authorization.k8s.io/v1 Role': PATH_SEGMENT,
  'rbac.authorization.k8s.io/v1 ClusterRole': PATH_SEGMENT,
  'rbac.authorization.k8s.io/v1 RoleBinding': PATH_SEGMENT,
  'rbac.authorization.k8s.io/v1 ClusterRoleBinding': PATH_SEGMENT,
};

const LABEL_VALUE_RULE: NameRule = {
  max: MAX_LABEL_LENGTH,
  pattern: new RegExp(LABEL_VALUE),
  what: 'a label value: letters, digits, "-", "_" and ".", starting and ending with a letter or digit',
};

/** A value as a message quotes it: a long one keeps its start and end. */
function quoted(value: string): string {
  return JSON.stringify(value.length <= 100 ? value : `${value.slice(0, 60)}…${value.slice(-20)}`);
}

/** The problem of `value` under `rule`, if it breaks it: the length first, as the API server says it. */
function broken(value: string, rule: NameRule): string | undefined {
  if (value.length > rule.max) {
    return `${value.length} characters; the API server accepts at most ${rule.max}`;
  }
  if (!rule.pattern.test(value)) return `not accepted: the API server accepts ${rule.what}`;
  return undefined;
}

/** The labels the API server checks on a child: its own, and its pod template's. */
function labelsOf(child: Manifest): [where: string, labels: Record<string, unknown>][] {
  const template = (child.spec as { template?: { metadata?: { labels?: unknown } } } | undefined)?.template;
  const found: [string, unknown][] = [
    ['label', child.metadata.labels],
    ['pod template label', template?.metadata?.labels],
  ];
  return found.filter(
    (f): f is [string, Record<string, unknown>] => typeof f[1] === 'object' && f[1] !== null,
  );
}

/**
 * Fails with a SpecError on the first child whose name or label value the API server would refuse. The
 * field is `metadata.name` when the value is made from the resource's name, else `spec` (a spec value
 * made it).
 */
export function checkChildNames(
  resource: Pick<CustomResource, 'metadata'>,
  children: readonly Manifest[],
): void {
  const name = resource.metadata.name;
  const fail = (value: string, detail: string): never => {
    const field = value.includes(name) ? 'metadata.name' : 'spec';
    const made = field === 'metadata.name' ? `${quoted(name)} makes` : 'the spec makes';
    throw new SpecError(field, `${made} ${detail}`);
  };
  for (const child of children) {
    const childName = child.metadata.name;
    if (typeof childName === 'string') {
      const rule = NAME_RULES[`${child.apiVersion} ${child.kind}`] ?? DNS_1123_SUBDOMAIN;
      const problem = broken(childName, rule);
      if (problem) fail(childName, `${child.kind} name ${quoted(childName)} ${problem}`);
    }
    for (const [where, labels] of labelsOf(child)) {
      for (const [key, value] of Object.entries(labels)) {
        if (typeof value !== 'string') continue;
        const problem = broken(value, LABEL_VALUE_RULE);
        if (problem) {
          fail(value, `${where} ${key} of ${child.kind} ${quoted(childName)} ${quoted(value)} ${problem}`);
        }
      }
    }
  }
}
