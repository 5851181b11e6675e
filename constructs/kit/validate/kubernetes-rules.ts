/**
 * Checks of kube-apiserver's Go validation of built-in kinds (pkg/apis/*\/validation) that their OpenAPI
 * schemas do not state, for the kinds constructs make most: pod templates, workloads' selectors,
 * PersistentVolumeClaims, Services, ConfigMap and Secret keys. A small, named subset, each with the API
 * server's field path and words; the rest of Go's validation is not done offline (docs/VALIDATION.md).
 */
import { parseQuantity } from '../quantity';
import { MAX_SUBDOMAIN_LENGTH } from '../names';
import { isObject, type Json, type JsonObject } from '../defaults';
import { issue, type Issue } from './field';
import { isDNS1123Label, validateObjectMeta } from './object-meta';

type Rule = (object: JsonObject, out: Issue[]) => void;

/** The value at a dotted path of objects, or undefined. */
function at(object: Json | undefined, path: string): Json | undefined {
  let value: Json | undefined = object;
  for (const part of path.split('.')) value = isObject(value) ? value[part] : undefined;
  return value;
}

const list = (value: Json | undefined): Json[] => (Array.isArray(value) ? value : []);

function notSupported(out: Issue[], field: string, value: Json, supported: readonly string[]): void {
  out.push(
    issue('NotSupported', field, value, `supported values: ${supported.map((s) => `"${s}"`).join(', ')}`),
  );
}

/** The restart policies a pod spec may have (the schema's enum); a kind's templates take fewer. */
const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];

/** The label and annotation checks of ObjectMeta, on a template's metadata. */
function templateMeta(path: string, metadata: Json | undefined, out: Issue[]): void {
  for (const i of validateObjectMeta(metadata, false)) {
    if (i.field === 'metadata.labels' || i.field === 'metadata.annotations') {
      out.push({ ...i, field: `${path}.${i.field}` });
    }
  }
}

/** ValidatePodSpec's container checks and restartPolicy, at `path` (a pod spec). */
function podSpec(
  path: string,
  spec: Json | undefined,
  restartPolicies: readonly string[],
  out: Issue[],
): void {
  if (!isObject(spec)) return;
  // Names are unique across both lists; within one, the map list's own check reports a repeat.
  const names = new Map<string, string>();
  for (const field of ['initContainers', 'containers']) {
    list(spec[field]).forEach((container, i) => {
      if (!isObject(container)) return;
      const at = `${path}.${field}[${i}]`;
      const { name } = container;
      if (typeof name === 'string' && name !== '') {
        for (const m of isDNS1123Label(name)) out.push(issue('Invalid', `${at}.name`, name, m));
        const first = names.get(name);
        if (first !== undefined && first !== field) out.push(issue('Duplicate', `${at}.name`, name));
        names.set(name, field);
      }
      list(container.ports).forEach((port, p) => {
        if (!isObject(port)) return;
        const { containerPort } = port;
        if (typeof containerPort === 'number' && (containerPort < 1 || containerPort > 65535)) {
          out.push(
            issue(
              'Invalid',
              `${at}.ports[${p}].containerPort`,
              containerPort,
              'must be between 1 and 65535, inclusive',
            ),
          );
        }
      });
    });
  }
  // An absent restartPolicy is defaulted to Always first; one the schema's enum refuses is reported there.
  const restartPolicy = spec.restartPolicy ?? 'Always';
  if (
    typeof restartPolicy === 'string' &&
    RESTART_POLICIES.includes(restartPolicy) &&
    !restartPolicies.includes(restartPolicy)
  ) {
    notSupported(out, `${path}.restartPolicy`, restartPolicy, restartPolicies);
  }
}

/** A pod template at `path`: its metadata's labels and annotations, and its pod spec. */
function podTemplate(path: string, restartPolicies: readonly string[]): Rule {
  return (object, out) => {
    const template = at(object, path);
    if (!isObject(template)) return;
    templateMeta(path, template.metadata, out);
    podSpec(`${path}.spec`, template.spec, restartPolicies, out);
  };
}

/** Whether a label selector (matchLabels and matchExpressions) selects `labels`. */
function selects(selector: JsonObject, labels: JsonObject): boolean {
  const matchLabels = isObject(selector.matchLabels) ? selector.matchLabels : {};
  if (Object.entries(matchLabels).some(([k, v]) => labels[k] !== v)) return false;
  return list(selector.matchExpressions).every((e) => {
    if (!isObject(e) || typeof e.key !== 'string') return true;
    const values = list(e.values);
    const has = e.key in labels;
    switch (e.operator) {
      case 'In':
        return has && values.includes(labels[e.key]);
      case 'NotIn':
        return !has || !values.includes(labels[e.key]);
      case 'Exists':
        return has;
      case 'DoesNotExist':
        return !has;
      default:
        return true;
    }
  });
}

/** A workload's selector: not empty, and selecting its pod template's labels. */
function selectorMatchesTemplate(what: string): Rule {
  return (object, out) => {
    const selector = at(object, 'spec.selector');
    if (!isObject(selector)) return;
    const empty =
      Object.keys(isObject(selector.matchLabels) ? selector.matchLabels : {}).length === 0 &&
      list(selector.matchExpressions).length === 0;
    if (empty) {
      out.push(issue('Invalid', 'spec.selector', selector, `empty selector is invalid for ${what}`));
      return;
    }
    const labels = at(object, 'spec.template.metadata.labels');
    if (!selects(selector, isObject(labels) ? labels : {})) {
      out.push(
        issue(
          'Invalid',
          'spec.template.metadata.labels',
          labels ?? {},
          '`selector` does not match template `labels`',
        ),
      );
    }
  };
}

/** A PersistentVolumeClaim's spec at `path`: an access mode, and a storage request above zero. */
function claimSpec(path: string, spec: Json | undefined, out: Issue[]): void {
  if (!isObject(spec)) return;
  const modes = list(spec.accessModes);
  if (modes.length === 0) {
    out.push(issue('Required', `${path}.accessModes`, '', 'at least 1 access mode is required'));
  }
  const storage = at(spec, 'resources.requests.storage');
  if (storage === undefined || storage === null) {
    out.push(issue('Required', `${path}.resources[storage]`, ''));
  } else if (typeof storage === 'string' || typeof storage === 'number') {
    const quantity = parseQuantity(storage);
    if (quantity && quantity.milli <= 0n) {
      out.push(issue('Invalid', `${path}.resources[storage]`, String(storage), 'must be greater than zero'));
    }
  }
}

const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;

/** ConfigMap and Secret keys: what a file name in a volume may be. */
function configKeys(...fields: string[]): Rule {
  return (object, out) => {
    for (const field of fields) {
      const data = object[field];
      if (!isObject(data)) continue;
      for (const key of Object.keys(data)) {
        if (key.length > MAX_SUBDOMAIN_LENGTH)
          out.push(
            issue(
              'Invalid',
              `${field}[${key}]`,
              key,
              `must be no more than ${MAX_SUBDOMAIN_LENGTH} characters`,
            ),
          );
        else if (!CONFIG_KEY.test(key) || key === '.' || key === '..') {
          out.push(
            issue(
              'Invalid',
              `${field}[${key}]`,
              key,
              "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
            ),
          );
        }
      }
    }
  };
}

/** A Service's type, and its ports: required unless headless or ExternalName, each in range. */
const service: Rule = (object, out) => {
  const spec = object.spec;
  if (!isObject(spec)) return;
  const type = spec.type ?? 'ClusterIP';
  const ports = list(spec.ports);
  if (ports.length === 0 && type !== 'ExternalName' && spec.clusterIP !== 'None') {
    out.push(issue('Required', 'spec.ports', ''));
  }
  ports.forEach((port, i) => {
    if (!isObject(port)) return;
    const { port: number } = port;
    if (typeof number === 'number' && (number < 1 || number > 65535)) {
      out.push(issue('Invalid', `spec.ports[${i}].port`, number, 'must be between 1 and 65535, inclusive'));
    }
  });
};

const WORKLOAD = ['Always'];
const RUN_TO_COMPLETION = ['OnFailure', 'Never'];

const RULES: Record<string, readonly Rule[]> = {
  'v1 Pod': [(o, out) => podSpec('spec', o.spec, RESTART_POLICIES, out)],
  'v1 PersistentVolumeClaim': [(o, out) => claimSpec('spec', o.spec, out)],
  'v1 Service': [service],
  'v1 ConfigMap': [configKeys('data', 'binaryData')],
  'v1 Secret': [configKeys('data', 'stringData')],
  'apps/v1 Deployment': [selectorMatchesTemplate('deployment'), podTemplate('spec.template', WORKLOAD)],
  'apps/v1 ReplicaSet': [selectorMatchesTemplate('replicaset'), podTemplate('spec.template', WORKLOAD)],
  'apps/v1 DaemonSet': [selectorMatchesTemplate('daemonset'), podTemplate('spec.template', WORKLOAD)],
  'apps/v1 StatefulSet': [
    selectorMatchesTemplate('statefulset'),
    podTemplate('spec.template', WORKLOAD),
    (o, out) =>
      list(at(o, 'spec.volumeClaimTemplates')).forEach((t, i) =>
        claimSpec(`spec.volumeClaimTemplates[${i}].spec`, isObject(t) ? t.spec : undefined, out),
      ),
  ],
  'batch/v1 Job': [podTemplate('spec.template', RUN_TO_COMPLETION)],
  'batch/v1 CronJob': [podTemplate('spec.jobTemplate.spec.template', RUN_TO_COMPLETION)],
};

/** The Go-validation checks of the kind `<apiVersion> <Kind>` (none for most kinds). */
export function validateKindRules(key: string, object: JsonObject, out: Issue[]): void {
  for (const rule of RULES[key] ?? []) rule(object, out);
}
