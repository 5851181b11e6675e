/**
 * Argo CD's health checks for our kinds. Argo CD knows no custom kind's health: without a check it shows a
 * resource of ours Healthy the moment it exists. A check is a Lua script in its `argocd-cm` ConfigMap,
 * under `resource.customizations.health.<group>_<Kind>`; the same script serves every kind, as every
 * kind's status follows the same conventions (controller/reconcile/status.ts, ./conditions.ts):
 *
 * | the status says                                   | Argo CD shows |
 * | ------------------------------------------------- | ------------- |
 * | `Suspended=True` (reconstruct.dev/reconcile: disabled) | Suspended |
 * | no status yet, or `observedGeneration` behind     | Progressing   |
 * | `Stalled=True` (a refused spec, a stopped rollout) | Degraded     |
 * | `Rollout=False`, `Waiting` (held for its turn)    | Suspended     |
 * | `Ready=True`                                      | Healthy       |
 * | `Ready=False` otherwise                           | Progressing   |
 *
 * A resource being deleted is Progressing by Argo CD's own rule, before any check.
 */
import type { Kind } from '../../constructs/kit';

/** The Lua health check of every kind (Argo CD runs it with `obj`, the live object; it returns `hs`). */
export const HEALTH_LUA = `-- reconstruct: a resource's health from its status conditions (reconstruct docs/OPERATING.md, "In Argo CD and Flux")
local hs = { status = "Progressing", message = "waiting for the controller to report the status" }
local conditions = {}
if obj.status ~= nil and obj.status.conditions ~= nil then
  for _, condition in ipairs(obj.status.conditions) do
    conditions[condition.type] = condition
  end
end
local function holds(type, status)
  return conditions[type] ~= nil and conditions[type].status == status
end
if holds("Suspended", "True") then
  hs.status = "Suspended"
  hs.message = conditions.Suspended.message
  return hs
end
if obj.status == nil or obj.status.observedGeneration == nil or conditions.Ready == nil then
  return hs
end
if obj.metadata.generation ~= nil and obj.status.observedGeneration < obj.metadata.generation then
  hs.message = "waiting for the controller to observe generation " .. obj.metadata.generation
  return hs
end
if holds("Stalled", "True") then
  hs.status = "Degraded"
  hs.message = conditions.Stalled.message
  return hs
end
if holds("Rollout", "False") and conditions.Rollout.reason == "Waiting" then
  hs.status = "Suspended"
  hs.message = conditions.Rollout.message
  return hs
end
if holds("Ready", "True") then
  hs.status = "Healthy"
else
  hs.status = "Progressing"
end
hs.message = conditions.Ready.message
return hs
`;

/** The namespace and name of Argo CD's ConfigMap, as its install makes it. */
export const ARGOCD_CM = { namespace: 'argocd', name: 'argocd-cm' } as const;

/** The `argocd-cm` key of a kind's health check: `resource.customizations.health.<group>_<Kind>`. */
export const healthKey = (kind: Pick<Kind, 'group' | 'kind'>): string =>
  `resource.customizations.health.${kind.group}_${kind.kind}`;

/**
 * The `argocd-cm` ConfigMap with only the health checks of `kinds`: applied server-side (or merged into a
 * Helm chart's `configs.cm`), it adds these keys and leaves Argo CD's others as they are.
 */
export function argocdHealthConfigMap(
  kinds: readonly Kind[],
  namespace: string = ARGOCD_CM.namespace,
): object {
  const data = Object.fromEntries(
    [...kinds]
      .sort((a, b) => healthKey(a).localeCompare(healthKey(b)))
      .map((k) => [healthKey(k), HEALTH_LUA]),
  );
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: ARGOCD_CM.name,
      namespace,
      labels: { 'app.kubernetes.io/name': ARGOCD_CM.name, 'app.kubernetes.io/part-of': 'argocd' },
    },
    data,
  };
}
