/**
 * Offline equals in-cluster, as a property: random WebFronts (test/fixtures/kinds/web-front.ts), some with
 * their settings ConfigMap and some without, some whose Service has an address and some not, with themes
 * and addresses of every awkward shape YAML has (`yes`, `0x1F`, `: x`, `#`, unicode, empty). Once the
 * controller has rendered them, `reconstruct inputs` reads their inputs from the cluster into a file,
 * `reconstruct synth --inputs` renders the same resources offline with it, and the two must agree: the same
 * children (a child that waits for an input is in neither), each offline child's every field as the
 * controller applied it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { inputsCommand } from '../../../cli/inputs';
import { synthCommand } from '../../../cli/synth';
import { LABEL_PART_OF, applySetId, type Manifest } from '../../../constructs/kit';
import { webFrontKind } from '../../fixtures/kinds/web-front';
import { capture } from '../../support/capture';
import { type RunningController, startController } from '../../support/controller';
import {
  applyYaml,
  createNamespace,
  deleteNamespace,
  exists,
  getJson,
  installCrds,
  kubectl,
  readyCondition,
  waitFor,
} from '../../support/kubectl';
import { mulberry32 } from '../../support/random';

jest.setTimeout(240_000);

const MODULE = join(__dirname, '../../fixtures/kinds/web-front.ts');
const SEED = Number(process.env.PARITY_SEED ?? 20261129);
const COUNT = 8;
const AWKWARD = ['yes', 'no', '0x1F', '1e3', ': x', '# not a comment', 'null', '~', "it's", 'ünï – 🎨', ' '];

let ns: string;
let dir: string;
let controller: RunningController | undefined;

beforeAll(async () => {
  installCrds([webFrontKind]);
  ns = createNamespace('parity');
  dir = mkdtempSync(join(tmpdir(), 'parity-'));
  controller = await startController(['--kinds', MODULE, '--no-builtin-kinds', '--namespaces', ns]);
});
afterAll(async () => {
  await controller?.stop('SIGKILL');
  if (ns) deleteNamespace(ns);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Case {
  name: string;
  image: string;
  theme?: string;
  host?: string;
}

function cases(random: () => number): Case[] {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  return Array.from({ length: COUNT }, (_, i) => ({
    name: `w${i}`,
    image: `registry.invalid/web:${Math.floor(random() * 100)}`,
    ...(random() < 0.75 ? { theme: random() < 0.5 ? pick(AWKWARD) : `theme-${i}` } : {}),
    ...(random() < 0.75 ? { host: `lb-${Math.floor(random() * 1e6)}.example.net` } : {}),
  }));
}

/** What Ready says once the controller has done what it can: each missing input named, or Ready. */
function settled(c: Case): boolean {
  const ready = readyCondition('webfront', c.name, ns);
  if (!ready) return false;
  if (c.theme !== undefined && c.host !== undefined) return ready.status === 'True';
  return (
    ready.reason === 'Waiting' &&
    (c.theme !== undefined || ready.message.includes('input theme')) &&
    (c.host !== undefined || ready.message.includes('input host')) &&
    !(c.theme !== undefined && ready.message.includes('input theme')) &&
    !(c.host !== undefined && ready.message.includes('input host'))
  );
}

/** Whether every field of `want` is in `got` with the same value (lists item by item). */
function missingFields(want: unknown, got: unknown, at = ''): string[] {
  if (Array.isArray(want)) {
    if (!Array.isArray(got)) return [`${at}: not a list in the cluster`];
    return want.flatMap((w, i) => missingFields(w, got[i], `${at}[${i}]`));
  }
  if (want !== null && typeof want === 'object') {
    if (got === null || typeof got !== 'object') return [`${at}: not an object in the cluster`];
    return Object.entries(want).flatMap(([k, w]) =>
      missingFields(w, (got as Record<string, unknown>)[k], `${at}.${k}`),
    );
  }
  return want === got
    ? []
    : [`${at}: ${JSON.stringify(want)} offline, ${JSON.stringify(got)} in the cluster`];
}

it('renders offline, with the inputs read from the cluster, what the controller applied', async () => {
  const all = cases(mulberry32(SEED));
  // The seed gives each case both ways: an input known, and one not.
  expect(
    new Set(all.map((c) => `${c.theme !== undefined} ${c.host !== undefined}`)).size,
  ).toBeGreaterThanOrEqual(3);
  for (const c of all) {
    if (c.theme !== undefined) {
      applyYaml(
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `${c.name}-settings`, namespace: ns },
          data: { theme: c.theme },
        }),
      );
    }
  }
  const resources = all.map((c) => ({
    apiVersion: webFrontKind.apiVersion,
    kind: 'WebFront',
    metadata: { name: c.name, namespace: ns },
    spec: { image: c.image, settings: `${c.name}-settings` },
  }));
  for (const r of resources) applyYaml(JSON.stringify(r));
  // kwok assigns no load balancer: the test writes the addresses as a cloud controller would.
  for (const c of all) {
    await waitFor(() => exists(['service', c.name, '-n', ns]), {
      what: `Service ${c.name}`,
      timeoutMs: 60_000,
    });
    if (c.host === undefined) continue;
    kubectl([
      'patch',
      'service',
      c.name,
      '-n',
      ns,
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({ status: { loadBalancer: { ingress: [{ hostname: c.host }] } } }),
    ]);
  }
  await waitFor(() => all.every(settled), { what: 'every WebFront settled', timeoutMs: 120_000 });

  // The inputs, as the cluster has them, into a file; the same resources rendered offline with it.
  const inputsOut = capture();
  const inputsErr = capture();
  const read = await inputsCommand(
    ['webfront', '-n', ns, '--kinds', MODULE, '--no-builtin-kinds'],
    inputsOut,
    inputsErr,
  );
  expect(inputsErr.text()).toBe('');
  expect(read).toBe(all.every((c) => c.theme !== undefined && c.host !== undefined) ? 0 : 1);
  writeFileSync(
    join(dir, 'inputs.yaml'),
    process.env.PARITY_MUTATE ? inputsOut.text().replace('lb-', 'xx-') : inputsOut.text(),
  );
  writeFileSync(join(dir, 'fronts.yaml'), resources.map((r) => JSON.stringify(r)).join('\n---\n'));
  const out = capture();
  const err = capture();
  const code = await synthCommand(
    [
      join(dir, 'fronts.yaml'),
      '-o',
      '-',
      '--kinds',
      MODULE,
      '--no-builtin-kinds',
      '--inputs',
      join(dir, 'inputs.yaml'),
    ],
    out,
    err,
  );
  expect(code).toBe(0);
  const offline = parseAllDocuments(out.text()).map((d) => d.toJS() as Manifest);

  let compared = 0;
  for (const c of all) {
    const parent = {
      apiVersion: webFrontKind.apiVersion,
      kind: 'WebFront',
      metadata: { name: c.name, namespace: ns },
    };
    const partOf = applySetId(parent);
    const live = ['deployments', 'services', 'configmaps'].flatMap((plural) =>
      getJson<{ items: Manifest[] }>([plural, '-n', ns, '-l', `${LABEL_PART_OF}=${partOf}`]).items.map(
        (o) => ({ ...o, kind: o.kind ?? plural }),
      ),
    );
    const mine = offline.filter(
      (o) => o.metadata.name === c.name || o.metadata.name === `${c.name}-endpoint`,
    );
    const names = (xs: Manifest[]) => xs.map((o) => `${o.kind} ${o.metadata.name}`).sort();
    // The same children: a child that waits for an input is in neither.
    expect({ case: c, children: names(live) }).toEqual({ case: c, children: names(mine) });
    compared += mine.length;
    for (const child of mine) {
      const applied = live.find((o) => o.kind === child.kind && o.metadata.name === child.metadata.name);
      expect({
        child: `${child.kind} ${child.metadata.name}`,
        differences: missingFields(child, applied),
      }).toEqual({
        child: `${child.kind} ${child.metadata.name}`,
        differences: [],
      });
    }
  }
  console.log(
    `${compared} children of ${all.length} WebFronts the same offline as in the cluster (seed ${SEED})`,
  );
});
