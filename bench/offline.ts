/**
 * Offline rendering of large input: peak RSS and wall time of `reconstruct synth`, which reads, renders
 * and writes one document at a time, beside a baseline that reads the whole file, parses every document,
 * renders them all and then writes (what `synth` did before it streamed), built from the same library
 * functions. Run with `npm run bench:offline`; `BENCH_MB` sets the input size (default 20).
 *
 * Inputs: one file of small Memcached resources (about 175 bytes each), and one file holding a single
 * ConfigMap of the same size, 1 KiB values (refused for its size: over the 3 MiB the API server takes). Each case runs
 * in a process of its own, so that its peak RSS is its own; the figures are the child's.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, createWriteStream } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { LineCounter, parseAllDocuments } from 'yaml';
import { synthCommand } from '../cli/synth';
import { builtinKinds } from '../constructs/builtin';
import { KindRegistry } from '../constructs/kit';
import type { Problem } from '../synth/problem';
import { MAX_DOCUMENT_BYTES, type SourceDocument } from '../synth/read';
import { isPassed, objectsOf, renderAll, type PassedThrough, type Rendered } from '../synth/render';
import { toYamlStream } from '../synth/yaml';

const MB = Number(process.env.BENCH_MB ?? 20);

interface Figures {
  readonly ms: number;
  /** Peak resident set size of the process, MiB. */
  readonly peakRss: number;
  readonly exit: number;
}

/** Small Memcached resources, up to `bytes` of YAML. Returns how many. */
function manyResources(file: string, bytes: number): number {
  const out: string[] = [];
  let size = 0;
  let i = 0;
  while (size < bytes) {
    const doc =
      `apiVersion: cache.example.com/v1alpha1\nkind: Memcached\nmetadata:\n  name: cache-${String(i).padStart(6, '0')}\n` +
      `  namespace: team-${i % 17}\n  labels: {app: shop, tier: cache}\nspec:\n  size: ${i % 5}\n` +
      `  image: memcached:1.6.${i % 30}-alpine\n`;
    out.push(doc);
    size += doc.length + 4;
    i++;
  }
  writeFileSync(file, out.join('---\n'));
  return i;
}

/** One ConfigMap of `bytes`, as keys of 1 KiB values. */
function oneDocument(file: string, bytes: number): void {
  const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata: {name: huge}', 'data:'];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `  key-${i}: "${String(i).padStart(8, '0').repeat(128)}"`;
    lines.push(line);
    size += line.length + 1;
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
}

/** The baseline: the file read whole, every document parsed and kept, all rendered, then all written. */
function renderWhole(input: string, output: string): number {
  const text = readFileSync(input, 'utf8');
  const documents: SourceDocument[] = [];
  const problems: Problem[] = [];
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter });
  (Array.isArray(docs) ? docs : []).forEach((doc, i) => {
    const index = i + 1;
    const resource = `document ${index}`;
    if (doc.errors.length > 0) {
      problems.push({ file: input, resource, message: 'invalid YAML' });
    } else if (doc.range[2] - doc.range[0] > MAX_DOCUMENT_BYTES) {
      problems.push({ file: input, resource, message: 'over 3 MiB' });
    } else {
      const value: unknown = doc.toJS({ maxAliasCount: 100 });
      if (value !== null && value !== undefined) documents.push({ file: input, index, value });
    }
  });
  const rendered = renderAll(documents, { kinds: new KindRegistry(builtinKinds) });
  const source = (o: Rendered | PassedThrough) => (isPassed(o) ? o.object : o.resource);
  writeFileSync(
    output,
    rendered.outputs
      .map(
        (o) =>
          `# Source: ${o.file} ${source(o).kind}/${source(o).metadata.name}\n${toYamlStream(objectsOf(o))}`,
      )
      .join('---\n'),
  );
  return problems.length + rendered.problems.length > 0 ? 1 : 0;
}

/** The command itself, writing a YAML stream into `output` (`-o -`) or files into the folder `output`. */
async function renderStreaming(input: string, output: string, toFolder: boolean): Promise<number> {
  const err = createWriteStream('/dev/null');
  if (toFolder) return synthCommand([input, '-o', output], process.stdout, err);
  const out = createWriteStream(output);
  const code = await synthCommand([input, '-o', '-'], out, err);
  out.end();
  await finished(out);
  return code;
}

/** In the child: one case, its figures as JSON on stdout. */
async function child(mode: string, input: string, output: string): Promise<void> {
  const start = process.hrtime.bigint();
  const exit =
    mode === 'whole' ? renderWhole(input, output) : await renderStreaming(input, output, mode === 'folder');
  const figures: Figures = {
    ms: Number(process.hrtime.bigint() - start) / 1e6,
    peakRss: process.resourceUsage().maxRSS / 1024,
    exit,
  };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

function run(mode: string, input: string, output: string): Figures {
  const text = execFileSync(process.execPath, [__filename, '--child', mode, input, output], {
    encoding: 'utf8',
    maxBuffer: 2 ** 20,
  });
  return JSON.parse(text.trim().split('\n').pop() ?? '{}') as Figures;
}

function main(): void {
  const dir = mkdtempSync(join(tmpdir(), 'bench-offline-'));
  try {
    const many = join(dir, 'many.yaml');
    const one = join(dir, 'one.yaml');
    const count = manyResources(many, MB * 2 ** 20);
    oneDocument(one, MB * 2 ** 20);
    const size = (f: string) => `${(statSync(f).size / 2 ** 20).toFixed(1)} MB`;
    console.log(`Offline rendering, one process per case`);
    console.log(`Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'})`);
    console.log(
      `Load average at start: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    console.log('');
    console.log('| Input | Path | Wall time (s) | Peak RSS (MiB) | Exit |');
    console.log('|---|---|---:|---:|---|');
    const cases: [string, string, string][] = [
      [`${count} resources in one file (${size(many)})`, many, 'stream'],
      [`${count} resources in one file (${size(many)})`, many, 'folder'],
      [`${count} resources in one file (${size(many)})`, many, 'whole'],
      [`one document (${size(one)})`, one, 'stream'],
      [`one document (${size(one)})`, one, 'whole'],
    ];
    const paths: Record<string, string> = {
      stream: 'streaming, `-o -`',
      folder: 'streaming, `-o DIR`',
      whole: 'baseline: read whole, then render',
    };
    for (const [label, input, mode] of cases) {
      const output = join(dir, `out-${mode}`);
      const f = run(mode, input, output);
      console.log(
        `| ${label} | ${paths[mode]} | ${(f.ms / 1000).toFixed(1)} | ${f.peakRss.toFixed(0)} | ${f.exit} |`,
      );
      rmSync(output, { recursive: true, force: true });
    }
    console.log('');
    console.log(
      `Load average at end: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') {
  const [mode, input, output] = process.argv.slice(3);
  child(mode, input, output).catch((e: unknown) => {
    console.error(e);
    process.exitCode = 2;
  });
} else {
  main();
}
