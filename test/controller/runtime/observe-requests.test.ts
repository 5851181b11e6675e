import type { KubeClient } from '../../../controller/kube/client';
import { ApiError } from '../../../controller/kube/errors';
import { createLogger } from '../../../controller/log';
import { Metrics, observeRequests } from '../../../controller/runtime/metrics';

/** A client whose requests are reported by hand, and the debug lines logged about them. */
function observed() {
  const lines: Record<string, unknown>[] = [];
  const client = {} as KubeClient;
  const log = createLogger({
    level: 'debug',
    write: (l) => lines.push(JSON.parse(l) as Record<string, unknown>),
  });
  observeRequests(client, new Metrics(), log);
  return { report: client.onRequest!, lines };
}

const create = { method: 'POST' as const, path: '/api/v1/namespaces/gone/events', query: {} };

it('logs a write refused in a namespace being deleted as NamespaceTerminating, not a plain 403', () => {
  const { report, lines } = observed();
  const terminating = new ApiError(
    403,
    'events "x" is forbidden: unable to create new content in namespace gone because it is being terminated',
    {
      reason: 'Forbidden',
      body: {
        kind: 'Status',
        reason: 'Forbidden',
        details: { causes: [{ reason: 'NamespaceTerminating' }] },
      },
    },
  );
  report('create', 403, 0.01, create, terminating);
  expect(lines).toEqual([
    expect.objectContaining({ msg: 'api write', code: 403, reason: 'NamespaceTerminating' }),
  ]);
});

it('logs a write refused by RBAC with its Status reason and message', () => {
  const { report, lines } = observed();
  const denied = new ApiError(
    403,
    'events is forbidden: User "system:serviceaccount:x:y" cannot create resource',
    {
      reason: 'Forbidden',
      body: { kind: 'Status', reason: 'Forbidden' },
    },
  );
  report('create', 403, 0.01, create, denied);
  expect(lines[0]).toMatchObject({ code: 403, reason: 'Forbidden' });
  expect(String(lines[0].error)).toContain('forbidden: User');
});

it('logs a write that succeeded without a reason', () => {
  const { report, lines } = observed();
  report('create', 201, 0.01, create);
  expect(lines[0]).toMatchObject({ msg: 'api write', code: 201 });
  expect(lines[0]).not.toHaveProperty('reason');
});
