/**
 * `cdk8s-reconstruct/testing`: unit tests of a kind's reconcile, against an in-memory cluster with a
 * recording writer. See docs/GUIDE.md ("A reconcile test").
 */
export { InMemoryCluster } from './in-memory-cluster';
export type { Write } from './write';
export { AdmissionError } from './api-server';
/** What `InMemoryCluster.reconcile` answers: when the controller would look again. */
export type { ReconcileResult } from '../controller/reconcile/reconciler';
/** One field an `AdmissionError` names, in the API server's words. */
export type { FieldError } from '../constructs/kit/validate';
export { FakeProvider, ProviderError, type CallOptions, type ProviderCall } from './fake-provider';
export { checkConversions, type ConversionCheck, type ConversionCheckOptions } from './conversions';
