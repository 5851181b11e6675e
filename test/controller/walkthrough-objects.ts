/**
 * What the walkthroughs (walkthroughs*.cluster.test.ts) read and write with: the shape of the objects they
 * look at, and kubectl get and apply of them.
 */
import { applyYaml, getJson } from '../support/kubectl';

/** The fields of an object the walkthroughs check. */
export type Obj = {
  metadata: {
    name: string;
    uid: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    ownerReferences?: { uid: string }[];
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown> & {
    conditions?: { type: string; status: string; reason: string; message: string }[];
  };
  data?: Record<string, string>;
};

/** `kubectl get ARGS -o json`. */
export const get = (args: string[]) => getJson<Obj>(args);
/** `kubectl apply` of an object, into namespace `ns` if given. */
export const apply = (obj: unknown, ns?: string) => applyYaml(JSON.stringify(obj), ns ? ['-n', ns] : []);
