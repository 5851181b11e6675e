import { ApiObject, JsonPatch } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';

/**
 * cdk8s-plus labels every pod template with `cdk8s.io/metadata.addr`, a value derived from the construct
 * path. Our selectors use the spec's own labels, so the label only ties the output to construct ids:
 * removing it keeps the rendered pods the same whoever builds the chart.
 */
export function withoutAddressLabel<T extends kplus.Deployment>(workload: T): T {
  ApiObject.of(workload).addJsonPatch(
    JsonPatch.remove(`/spec/template/metadata/labels/${kplus.Pod.ADDRESS_LABEL.replace('/', '~1')}`),
  );
  return workload;
}
