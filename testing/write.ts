/**
 * One write the in-memory cluster recorded, as a test asserts it: what the cluster records (./in-memory-cluster)
 * and what its API server can be told to refuse (./api-server), by verb.
 */
export interface Write {
  verb: 'apply' | 'create' | 'patch' | 'delete' | 'status';
  kind: string;
  name: string;
  fieldManager?: string;
  body?: unknown;
}
