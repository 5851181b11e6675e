/** The kit: what a kind author uses to define a kind, and what the renderer and the controller take. */
export * from './api-kind';
export * from './cluster-view';
export * from './custom-resource';
export * from './defaults';
export * from './define-kind';
export * from './readiness';
export * from './registry';
export * from './resource';
export * from './schema';
export * from './synthesize';
export * from './workload';
export * from './quantity';
