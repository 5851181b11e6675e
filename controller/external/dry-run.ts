/**
 * External work in a dry run (`reconstruct diff`): each resource's object is observed, and what the
 * controller would do about it is said (`would update DNS record www: ttl: 300 -> 600`), never done:
 * apply and delete are not called. What was planned is kept in `planned`, by resource.
 */
import type { CustomResource, Kind } from '../../constructs/kit';
import { objectKey } from '../kube/object-key';
import type { Logger } from '../log';
import { callHandler } from './call';
import type { SecretReads } from './secrets';
import type { ExternalState, ExternalSteps, StepOptions } from './steps';
import { fingerprint, verdict } from './verdict';

export class DryRunExternal implements ExternalSteps {
  /** By queue key: what the controller would do outside for the resource, or why it cannot tell. */
  readonly planned = new Map<string, { change?: string; error?: string }>();
  private readonly stop = new AbortController().signal;
  /** By queue key: what observe said, for the resource's inputs (in a dry run's second pass). */
  private readonly observations = new Map<string, unknown>();

  constructor(private readonly secrets: SecretReads) {}

  async step(
    definition: Kind,
    resource: CustomResource,
    { deleting }: StepOptions,
    log: Logger,
  ): Promise<ExternalState> {
    const work = definition.external!;
    const desired = work.desired(resource);
    const what = work.describe(desired);
    const key = objectKey(definition, resource.metadata.namespace, resource.metadata.name);
    const plan = (readiness: ExternalState['readiness'], planned?: string): ExternalState => {
      if (planned) this.planned.set(key, { change: planned });
      return { readiness };
    };
    if (deleting && work.retain(resource)) return plan({ ready: true, reason: 'Deleted', message: '' });
    const call = { definition, resource, desired, observed: undefined, log, freshSecrets: true };
    const outcome = await callHandler({ ...call, action: 'observe' }, this.secrets, this.stop);
    if ('failure' in outcome) {
      const { reason, message } = outcome.failure;
      this.planned.set(key, { error: `cannot observe ${what}: ${reason}: ${message}` });
      return { readiness: { ready: false, reason, message } };
    }
    this.observations.set(key, outcome.value);
    const observation = { value: outcome.value, at: 0, fingerprint: fingerprint(desired) };
    const said = verdict(work, resource, desired, observation, deleting);
    const planned =
      said.action === 'delete'
        ? `would delete ${what}`
        : said.action === 'apply'
          ? said.differences
            ? `would update ${what}: ${said.differences.join('; ')}`
            : `would create ${what}`
          : undefined;
    return {
      ...plan(said.readiness, planned),
      ...(said.gone ? { gone: true } : {}),
      observed: outcome.value,
    };
  }

  observed(key: string): unknown {
    return this.observations.get(key);
  }

  busy(): boolean {
    return false;
  }

  forget(key: string): void {
    this.planned.delete(key);
  }
}
