/**
 * Observed inputs at scale: `npm run bench:inputs [-- --count 500 --changes 100]`.
 *
 * The real controller (a child process, the Themed kind of kind.ts alone) with `--count` Themed resources,
 * each reading the theme of a ConfigMap of its own (`s-<i>`, an input, watched by name: `--count` watches)
 * into its child ConfigMap `t-<i>-page`. Then, one change at a time, alternating blocks of `--block`:
 *
 *  - **the baseline, a spec change**: a merge patch of a resource's `spec.color`, timed until this
 *    process's own watch sees its page carry the new color (the resource's own watch event: the fastest
 *    path the controller has);
 *  - **an input change**: a merge patch of a resource's settings ConfigMap `data.theme`, timed until its
 *    page carries the new theme (the input's watch by name, then the resource's reconcile).
 *
 * Per side: the latency (p50 / p99 / max), and from the controller's metrics over its blocks, reconciles,
 * LISTs and GETs per change. The resync is a day: no reconcile comes but from events.
 */
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { CONFIG_MAP, NAMESPACE, type KubeObject } from '../../constructs/kit';
import { loadClient, type KubeClient } from '../../controller/kube/client';
import { resourcePath } from '../../controller/kube/paths';
import { applyRequest } from '../../controller/kube/writer';
import { Informer } from '../../controller/runtime/informer';
import { ControllerProcess, removeControllerLogs } from '../controller/controller-process';
import type { Snapshot } from '../controller/metrics';
import { guard, run } from '../controller/guard';
import { installKind, startWithKinds } from '../controller/kind-setup';
import { int } from '../controller/settings';
import { log, now, pool, quantile, until } from '../controller/support';
import { themedKind } from './kind';

const HELP = `Usage: node dist/bench/inputs/main.js [options]   (npm run bench:inputs -- [options])

  --count N     Themed resources, each with a settings ConfigMap of its own (default 500)
  --changes N   changes timed on each side, spec and input (default 100)
  --block N     changes in a block; the sides alternate by block (default 10)
  -h, --help
`;

const KINDS = join(__dirname, 'kind.js');
const MANAGER = 'bench-inputs';
type Side = 'spec change (baseline)' | 'input change';
const SIDES: Side[] = ['spec change (baseline)', 'input change'];

interface Tally {
  readonly latenciesMs: number[];
  /** Watch events that enqueued a resource, by the resource watched and event. */
  readonly enqueuedBy: Map<string, number>;
  reconciles: number;
  lists: number;
  gets: number;
}

/** What this process's own watch of the namespace's ConfigMaps has seen of each page, and who waits. */
class Pages {
  private readonly waiters = new Map<string, { key: string; value: string; resolve: () => void }>();
  readonly informer: Informer;

  constructor(
    client: KubeClient,
    private readonly namespace: string,
  ) {
    const seen = (obj: KubeObject) => {
      const waiter = this.waiters.get(obj.metadata.name);
      const data = (obj as { data?: Record<string, string> }).data ?? {};
      if (waiter && data[waiter.key] === waiter.value) {
        this.waiters.delete(obj.metadata.name);
        waiter.resolve();
      }
    };
    this.informer = new Informer(
      client,
      { type: CONFIG_MAP, namespace },
      { onAdd: seen, onUpdate: (_, o) => seen(o) },
    );
  }

  /** Resolves once the page shows `key: value`, or rejects after 30 s. */
  until(page: string, key: string, value: string): Promise<void> {
    const current = (this.informer.get(this.namespace, page) as { data?: Record<string, string> } | undefined)
      ?.data;
    if (current?.[key] === value) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${page} did not show ${key}=${value} in 30 s`)),
        30_000,
      );
      this.waiters.set(page, { key, value, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }
}

/** The controller's watch events that enqueued, by resource watched and event; its reconciles by result. */
function enqueuedBy(s: Snapshot): Map<string, number> {
  const out = new Map<string, number>();
  for (const { labels, value } of s.series('reconstruct_watch_events_total')) {
    if (labels.result !== 'enqueued') continue;
    const key = `${labels.resource} ${labels.event}`;
    out.set(key, (out.get(key) ?? 0) + value);
  }
  // And the reconciles, by result (a requeue_after comes back by itself).
  for (const { labels, value } of s.series('reconstruct_reconcile_total')) {
    out.set(`reconcile ${labels.result}`, (out.get(`reconcile ${labels.result}`) ?? 0) + value);
  }
  return out;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      count: { type: 'string' },
      changes: { type: 'string' },
      block: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const count = int('count', values.count, 500, 1);
  const changes = int('changes', values.changes, 100, 1);
  const block = int('block', values.block, 10, 1);
  const client = loadClient();
  const namespace = `bench-inputs-${Date.now().toString(36)}`;
  const apply = (path: string, body: unknown) => client.request(applyRequest(path, body, MANAGER));
  const running: { controller?: ControllerProcess } = {};
  const cleanUp = guard(30 * 60_000, async () => {
    await running.controller?.stop();
    await client
      .request({ method: 'DELETE', path: resourcePath(NAMESPACE, undefined, namespace) })
      .catch(() => {});
  });

  await installKind(client, themedKind, namespace, MANAGER);

  const pages = new Pages(client, namespace);
  pages.informer.start();
  await pages.informer.waitForSync();
  const controller = (running.controller = await startWithKinds(KINDS, 'Themed', namespace));

  const settings = (i: number, theme: string) =>
    apply(resourcePath(CONFIG_MAP, namespace, `s-${i}`), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `s-${i}`, namespace },
      data: { theme },
    });
  const themed = (i: number, color: string) =>
    apply(resourcePath(themedKind, namespace, `t-${i}`), {
      apiVersion: themedKind.apiVersion,
      kind: themedKind.kind,
      metadata: { name: `t-${i}`, namespace },
      spec: { settings: `s-${i}`, color },
    });
  const indexes = Array.from({ length: count }, (_, i) => i);
  log(`creating ${count} settings ConfigMaps and ${count} Themed resources in ${namespace}`);
  const started = now();
  await pool(indexes, 16, (i) => settings(i, 'theme-0').then(() => undefined));
  await pool(indexes, 16, (i) => themed(i, 'color-0').then(() => undefined));
  await Promise.all(indexes.map((i) => pages.until(`t-${i}-page`, 'theme', 'theme-0')));
  log(`all ${count} pages written ${((now() - started) / 1000).toFixed(1)} s after the first create`);
  // The creation's tail (status writes, the children's events, requeues) is not the first block's.
  let last = -1;
  const quiet = await until(
    async () => {
      const s = await controller.metrics();
      const settled = s.reconciles() === last && s.queueDepth() === 0;
      last = s.reconciles();
      return settled;
    },
    120_000,
    2_000,
  );
  if (!quiet) throw new Error('the controller was still reconciling 2 minutes after the pages were written');

  const tallies = new Map<Side, Tally>(
    SIDES.map((s) => [s, { latenciesMs: [], enqueuedBy: new Map(), reconciles: 0, lists: 0, gets: 0 }]),
  );
  const verbs = (s: Snapshot, verb: string) => s.requests([verb]);
  let n = 0;
  for (let b = 0; n < changes * SIDES.length; b++) {
    // Which side goes first alternates.
    for (const side of b % 2 === 0 ? SIDES : [...SIDES].reverse()) {
      const tally = tallies.get(side)!;
      const before = await controller.metrics();
      for (let j = 0; j < block && tally.latenciesMs.length < changes; j++, n++) {
        const i = (b * block + j) % count;
        const value = `${side === 'input change' ? 'theme' : 'color'}-${b + 1}`;
        const sent = now();
        const shown = pages.until(`t-${i}-page`, side === 'input change' ? 'theme' : 'color', value);
        await (side === 'input change' ? settings(i, value) : themed(i, value));
        await shown;
        tally.latenciesMs.push(now() - sent);
      }
      // The reconciles a change brings come within the gather window after its child is written.
      await new Promise((r) => setTimeout(r, 300));
      const after = await controller.metrics();
      tally.reconciles += after.reconciles() - before.reconciles();
      tally.lists += verbs(after, 'list') - verbs(before, 'list');
      tally.gets += verbs(after, 'get') - verbs(before, 'get');
      for (const [watch, n] of enqueuedBy(after)) {
        tally.enqueuedBy.set(
          watch,
          (tally.enqueuedBy.get(watch) ?? 0) + n - (enqueuedBy(before).get(watch) ?? 0),
        );
      }
    }
  }
  const rss = controller.rssKiB / 1024;
  const errors = controller.errorLines();
  await cleanUp();
  pages.informer.stop().catch(() => {});

  const row = (figure: string, cell: (t: Tally) => string) =>
    `| ${figure} | ${SIDES.map((s) => cell(tallies.get(s)!)).join(' | ')} |`;
  const ms = (t: Tally, q: number) => quantile(t.latenciesMs, q).toFixed(0);
  const per = (x: number, t: Tally) => (x / t.latenciesMs.length).toFixed(2);
  process.stdout.write(
    [
      `${count} Themed resources, each reading a ConfigMap of its own (${count} watches by name); ${changes} changes a side, one at a time, in alternating blocks of ${block}; controller RSS ${rss.toFixed(0)} MiB`,
      '',
      `| | ${SIDES.join(' | ')} |`,
      `|---|${SIDES.map(() => '---').join('|')}|`,
      row(
        'change -> child written, ms: p50 / p99 / max',
        (t) => `${ms(t, 0.5)} / ${ms(t, 0.99)} / ${Math.max(...t.latenciesMs).toFixed(0)}`,
      ),
      row('reconciles per change', (t) => per(t.reconciles, t)),
      row('LISTs per change', (t) => per(t.lists, t)),
      row('GETs per change', (t) => per(t.gets, t)),
      '',
    ].join('\n'),
  );
  for (const side of SIDES) {
    const t = tallies.get(side)!;
    const by = [...t.enqueuedBy].filter(([, n]) => n > 0).map(([w, n]) => `${w} ${per(n, t)}`);
    log(`${side}, per change: ${by.join(', ')}`);
  }
  if (errors.length > 0) log(`the controller logged ${errors.length} errors, e.g. ${errors[0]}`);
  else removeControllerLogs();
  const input = tallies.get('input change')!;
  const ok = quantile(input.latenciesMs, 0.99) < 1000 && input.lists === 0;
  if (!ok) log('an input change took 1 s or more at p99, or brought a LIST');
  return ok && errors.length === 0 ? 0 : 1;
}

run(main);
