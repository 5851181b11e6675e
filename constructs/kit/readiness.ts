/** Readiness of the children a kind waits for, as a kind's `ready` rule asks for it. */
import { DEPLOYMENT } from './api-kind';
import type { ClusterView, KubeObject, Readiness } from './cluster-view';
import type { Manifest } from './resource';

type DeploymentStatus = {
  availableReplicas?: number;
  updatedReplicas?: number;
  replicas?: number;
  observedGeneration?: number;
};

/**
 * Whether a Deployment has rolled out `replicas` available pods of its current template: it has observed
 * its latest spec, and every pod is updated and available, with no old pods left over.
 */
export function deploymentReadiness(deployment: KubeObject | undefined, replicas: number): Readiness {
  if (!deployment) {
    return { ready: false, reason: 'Progressing', message: 'the Deployment does not exist yet' };
  }
  const status = (deployment.status ?? {}) as DeploymentStatus;
  const name = deployment.metadata.name;
  if ((status.observedGeneration ?? 0) < (deployment.metadata.generation ?? 0)) {
    return {
      ready: false,
      reason: 'Progressing',
      message: `Deployment ${name} has not observed its latest spec yet`,
    };
  }
  const available = status.availableReplicas ?? 0;
  const updated = status.updatedReplicas ?? 0;
  const message = `Deployment ${name}: ${available}/${replicas} pods available`;
  const ready = available >= replicas && updated >= replicas && (status.replicas ?? 0) <= replicas;
  return { ready, reason: ready ? 'Available' : 'Progressing', message };
}

/** The desired Deployment among a resource's children (the first, when there are several), with its replicas. */
export function desiredDeployment(
  children: readonly Manifest[],
  name?: string,
): Manifest & { spec: { replicas: number } } {
  const found = children.find(
    (c) => c.kind === 'Deployment' && (name === undefined || c.metadata.name === name),
  );
  if (!found) throw new Error(`no Deployment${name ? ` ${name}` : ''} among the desired children`);
  const spec = (found.spec ?? {}) as { replicas?: number };
  return { ...found, spec: { ...spec, replicas: spec.replicas ?? 1 } };
}

/**
 * Whether the resource's desired Deployment (the one named `name`, else the first) has rolled out its
 * replicas, as the cluster view shows it: the Ready rule of a kind whose Deployment is what it serves.
 */
export function deploymentChildReadiness(
  context: {
    resource: { metadata: { namespace?: string } };
    children: readonly Manifest[];
    view: ClusterView;
  },
  name?: string,
): Readiness {
  const deployment = desiredDeployment(context.children, name);
  const live = context.view.get(DEPLOYMENT, context.resource.metadata.namespace, deployment.metadata.name);
  return deploymentReadiness(live, deployment.spec.replicas);
}
