import { ApiObject, JsonPatch } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import type { Construct } from 'constructs';
import { IGNORE_FIELDS_ANNOTATION } from './child-annotations';
import { childPolicy } from './child-policy';

const REPLICAS = '/spec/replicas';

/**
 * Takes cdk8s-plus's `cdk8s.io/metadata.addr` label off a workload's pod template. The label is harmless
 * (`synthesize` makes its value differ between resources); a kind removes it to keep its pods' labels
 * its own, as the built-in kinds do, since changing a pod template's labels rolls the pods. Then the
 * workload, and every Service, NetworkPolicy or budget of the resource, must select the pods by labels
 * they carry: give the workload `select: false` and `.select(...)`. `synthesize` refuses a selector left on
 * the removed label, naming the child.
 */
export function withoutAddressLabel<T extends kplus.Workload>(workload: T): T {
  const template =
    ApiObject.of(workload).kind === 'CronJob' ? '/spec/jobTemplate/spec/template' : '/spec/template';
  ApiObject.of(workload).addJsonPatch(
    JsonPatch.remove(`${template}/metadata/labels/${kplus.Pod.ADDRESS_LABEL.replace('/', '~1')}`),
  );
  return workload;
}

/** What cdk8s-plus's Deployment and StatefulSet have for an autoscaler (kplus.IScalable). */
interface Scalable {
  hasAutoscaler?: unknown;
  replicas?: unknown;
}

/**
 * Hands the replicas of every workload an autoscaler targets to the autoscaler: the workload is created
 * with the replicas the construct gave it, and the controller leaves `spec.replicas` alone afterwards
 * (the `ignoreFields: ['/spec/replicas']` child policy, added to any the construct declared). Without it
 * cdk8s-plus refuses such a workload (`HorizontalPodAutoscaler target cannot have a fixed number of
 * replicas`), and a workload created without replicas would start with one pod, whatever the spec says.
 */
export function handReplicasToAutoscalers(scope: Construct): void {
  for (const construct of scope.node.findAll()) {
    const scalable = construct as Scalable;
    if (scalable.hasAutoscaler !== true || typeof scalable.replicas !== 'number') continue;
    const metadata = ApiObject.of(construct).metadata.toJson() as { annotations?: Record<string, string> };
    const declared = metadata.annotations?.[IGNORE_FIELDS_ANNOTATION];
    const ignored = typeof declared === 'string' && declared !== '' ? declared.split(',') : [];
    childPolicy(construct, { ignoreFields: ignored.includes(REPLICAS) ? ignored : [...ignored, REPLICAS] });
  }
}
