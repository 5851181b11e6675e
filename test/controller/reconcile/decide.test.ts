/**
 * The decision a reconcile ends with, as a table: from what the apply phase did (a summary) and the kind's
 * rules, which events, which Ready condition (if any) and when to look again.
 */
import { SpecError, type Readiness } from '../../../constructs/kit';
import {
  decide,
  decideInvalid,
  FIRST_STATUS_HOLD_MS,
  UNDISCOVERED_RECHECK_MS,
  type Facts,
} from '../../../controller/reconcile/decide';
import { summarize, type Summary } from '../../../controller/reconcile/summary';

const READY: Readiness = { ready: true, reason: 'Ready', message: 'all children ready' };
const PROGRESSING: Readiness = { ready: false, reason: 'Progressing', message: '1 of 3 replicas ready' };

const quiet: Summary = summarize([]);
const facts = (over: Partial<Facts> = {}): Facts => ({
  kind: 'WebApp',
  fresh: false,
  recordsKept: true,
  readiness: () => READY,
  ...over,
});

const reasons = (summary: Summary, f: Facts) => decide(summary, f).events.map((e) => `${e.type} ${e.reason}`);

describe('decide', () => {
  it.each<[string, Summary, Facts, ReturnType<typeof decide>]>([
    [
      'nothing changed, Ready: the status says so and no recheck is due',
      quiet,
      facts(),
      {
        events: [],
        status: { readiness: READY, mayHold: true },
        next: 'settled',
      },
    ],
    [
      'nothing changed, not Ready: the status (which may wait while it only reports progress) and a recheck',
      quiet,
      facts({ readiness: () => PROGRESSING }),
      {
        events: [],
        status: { readiness: PROGRESSING, mayHold: true },
        next: 'recheck',
      },
    ],
    [
      'children created for a new resource: no event; the status says how the children just written do',
      { ...quiet, created: ['Deployment web', 'Service web'] },
      facts({ fresh: true, readiness: () => PROGRESSING }),
      {
        events: [],
        status: { readiness: PROGRESSING, mayHold: true },
        next: 'recheck',
      },
    ],
    [
      'children created for a new resource in a burst (resources wait in the queue): children first, its status in a second',
      { ...quiet, created: ['Deployment web', 'Service web'] },
      facts({ fresh: true, holdFirstStatus: true, readiness: () => PROGRESSING }),
      { events: [], next: { afterMs: FIRST_STATUS_HOLD_MS } },
    ],
    [
      'a child made again for a resource that had a status: one Created event, and the status of the world now',
      { ...quiet, created: ['Service web'] },
      facts(),
      {
        events: [{ type: 'Normal', reason: 'Created', message: 'Created Service web' }],
        status: { readiness: READY, mayHold: true },
        next: 'settled',
      },
    ],
    [
      'a child created once the sibling it waited for is ready: the status no longer says the wait',
      { ...quiet, created: ['Deployment web'] },
      facts({ readiness: () => PROGRESSING }),
      {
        events: [{ type: 'Normal', reason: 'Created', message: 'Created Deployment web' }],
        status: { readiness: PROGRESSING, mayHold: true },
        next: 'recheck',
      },
    ],
    [
      'a child created with a new write-only record: the status is written at once, not held',
      { ...quiet, created: ['Secret web-password'] },
      facts({ fresh: true, recordsKept: false }),
      {
        events: [],
        status: { readiness: READY, mayHold: false },
        next: 'settled',
      },
    ],
    [
      'updated and pruned children: one event each kind of change',
      { ...quiet, updated: ['Deployment web'], pruned: ['Service old'] },
      facts(),
      {
        events: [
          { type: 'Normal', reason: 'Updated', message: 'Updated Deployment web' },
          { type: 'Normal', reason: 'Pruned', message: 'Deleted Service old: no longer wanted' },
        ],
        status: { readiness: READY, mayHold: true },
        next: 'settled',
      },
    ],
    [
      'a child waiting for a sibling: the kind says how that reads (its readiness); no event for a wait just begun',
      { ...quiet, waiting: ['Deployment web waits for Job web-migrate: not complete'] },
      facts({ readiness: () => ({ ready: false, reason: 'Waiting', message: 'w' }) }),
      {
        events: [],
        status: { readiness: { ready: false, reason: 'Waiting', message: 'w' }, mayHold: false },
        next: 'recheck',
      },
    ],
    [
      'a wait that lasts: a Waiting event',
      { ...quiet, waiting: ['Deployment web waits for Job web-migrate: not complete'] },
      facts({ readiness: () => ({ ready: false, reason: 'Waiting', message: 'w' }), waitLasts: true }),
      {
        events: [
          {
            type: 'Normal',
            reason: 'Waiting',
            message: 'Deployment web waits for Job web-migrate: not complete',
          },
        ],
        status: { readiness: { ready: false, reason: 'Waiting', message: 'w' }, mayHold: false },
        next: 'recheck',
      },
    ],
  ])('%s', (_name, summary, f, expected) => {
    expect(decide(summary, f)).toEqual(expected);
  });

  it('what a user asked for (reconcile now, resume) is said at once: its event first, the status written and not held', () => {
    const created = { ...quiet, created: ['Deployment web'] };
    expect(decide(created, facts({ fresh: true, requested: 't1' }))).toEqual({
      events: [
        {
          type: 'Normal',
          reason: 'ReconcileRequested',
          message: 'reconcile requested (reconstruct.dev/requested-at=t1)',
        },
      ],
      status: { readiness: READY, mayHold: false },
      next: 'settled',
    });
    expect(decide(quiet, facts({ resumed: true, readiness: () => PROGRESSING }))).toEqual({
      events: [
        {
          type: 'Normal',
          reason: 'Resumed',
          message: 'reconcile resumed: reconstruct.dev/reconcile=disabled is gone',
        },
      ],
      status: { readiness: PROGRESSING, mayHold: false },
      next: 'recheck',
    });
  });

  it('a name another object holds: ErrResourceExists in Ready (stalled) and a Warning, and no recheck (its deletion brings it back)', () => {
    const decision = decide({ ...quiet, conflicts: ['Deployment web', 'Service other/web'] }, facts());
    const message =
      'Deployment web, Service other/web already exists and is not managed by WebApp (to hand it over, annotate it reconstruct.dev/adopt=true)';
    expect(decision).toEqual({
      events: [{ type: 'Warning', reason: 'ErrResourceExists', message }],
      status: {
        readiness: { ready: false, reason: 'ErrResourceExists', message, stalled: true },
        mayHold: false,
      },
      next: 'settled',
    });
  });

  it('an apply the API server refused: ApplyFailed in Ready, a Warning, and an error so that the queue backs off', () => {
    const summary = summarize([
      { kind: 'failed', label: 'Deployment web', message: 'apply Deployment web: 422 invalid' },
      { kind: 'updated', label: 'Service web' },
    ]);
    expect(decide(summary, facts())).toEqual({
      events: [
        { type: 'Normal', reason: 'Updated', message: 'Updated Service web' },
        { type: 'Warning', reason: 'ApplyFailed', message: 'apply Deployment web: 422 invalid' },
      ],
      status: {
        readiness: { ready: false, reason: 'ApplyFailed', message: 'apply Deployment web: 422 invalid' },
        mayHold: false,
      },
      error: 'apply Deployment web: 422 invalid',
      next: 'recheck',
    });
  });

  it('a kind the API server does not map yet: Waiting, checked again in seconds, no error and no Warning', () => {
    const summary = summarize([
      { kind: 'failed', label: 'Deployment web', message: 'm', undiscovered: true },
    ]);
    const decision = decide(summary, facts());
    expect(decision.events).toEqual([]);
    expect(decision.error).toBeUndefined();
    expect(decision.status?.readiness).toMatchObject({ ready: false, reason: 'Waiting' });
    expect(decision.status?.readiness.message).toContain('does not map WebApp to its CRD yet');
    expect(decision.next).toEqual({ afterMs: UNDISCOVERED_RECHECK_MS });
  });

  it('an undiscovered kind beside another failure: the failure wins', () => {
    const summary = summarize([
      { kind: 'failed', label: 'Deployment web', message: 'm', undiscovered: true },
      { kind: 'failed', label: 'Service web', message: 'apply Service web: 500' },
    ]);
    expect(reasons(summary, facts())).toEqual(['Warning ApplyFailed']);
  });

  it('asks the kind for its readiness only when a status is written', () => {
    const readiness = jest.fn(() => READY);
    decide(
      { ...quiet, created: ['Deployment web'] },
      facts({ fresh: true, holdFirstStatus: true, readiness }),
    );
    expect(readiness).not.toHaveBeenCalled();
    decide(quiet, facts({ readiness }));
    expect(readiness).toHaveBeenCalledTimes(1);
  });

  it('a spec the construct refuses: InvalidSpec in Ready (stalled) and a Warning, not retried', () => {
    const err = new SpecError('spec.replicas', 'must be at least 1');
    expect(decideInvalid(err)).toEqual({
      events: [{ type: 'Warning', reason: 'InvalidSpec', message: 'spec.replicas: must be at least 1' }],
      status: {
        readiness: { ready: false, reason: 'InvalidSpec', message: err.message, stalled: true },
        mayHold: false,
      },
      next: 'settled',
    });
  });
});

describe('summarize', () => {
  it('folds the outcomes once: sorted labels, blockers, the namespace refusals', () => {
    const summary = summarize([
      { kind: 'created', label: 'Service web' },
      { kind: 'created', label: 'Deployment web' },
      { kind: 'adopted', label: 'ConfigMap web (adopted)' },
      { kind: 'conflict', label: 'Secret ns/web', blocker: 'v1/Secret/ns/web' },
      { kind: 'waiting', label: 'Job web', message: 'Job web waits for Secret web' },
      { kind: 'failed', label: 'PDB web', message: 'apply PDB web: forbidden', terminating: true },
      { kind: 'unchanged', label: 'Role web' },
      {
        kind: 'unchanged',
        label: 'Role kept',
        drift: { child: 'Role kept', childKind: 'Role', field: 'rules' },
      },
    ]);
    expect(summary).toEqual({
      created: ['Deployment web', 'Service web'],
      updated: ['ConfigMap web (adopted)'],
      waiting: ['Job web waits for Secret web'],
      conflicts: ['Secret ns/web'],
      failures: ['apply PDB web: forbidden'],
      blockers: ['v1/Secret/ns/web'],
      terminating: ['apply PDB web: forbidden'],
      undiscoveredOnly: false,
      pruned: [],
      retained: [],
      drifts: [{ child: 'Role kept', childKind: 'Role', field: 'rules' }],
    });
  });
});
