/**
 * `cdk8s-reconstruct/testing`: unit tests of a kind's reconcile, against an in-memory cluster with a
 * recording writer. See docs/GUIDE.md ("A reconcile test").
 */
export { AdmissionError, InMemoryCluster, type Write } from './in-memory-cluster';
