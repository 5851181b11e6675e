/**
 * A real OpenTelemetry Collector for the tests (scripts/otel/collector: built from the Go module proxy,
 * cached): it receives OTLP over HTTP on a free port and its file exporter writes each batch it gets as
 * one line of OTLP JSON; `spans()` reads them back, flattened.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../controller/runtime/server';
import { waitFor } from './kubectl';

const DIR = join(__dirname, '../../scripts/otel/collector');

/** A span as the collector received it. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  readonly attributes: Record<string, string | number | boolean>;
  readonly links: { traceId: string; spanId: string }[];
  /** The resource's attributes (service.name, ...). */
  readonly resource: Record<string, string | number | boolean>;
  /** 2 for an error. */
  readonly status?: { code?: number; message?: string };
}

export interface RunningCollector {
  /** The OTLP/HTTP endpoint, for --otlp-endpoint or OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly endpoint: string;
  spans(): ReceivedSpan[];
  stop(): Promise<void>;
}

/** The collector's binary: built once (cached outside the repository), else the build's last line of error. */
export function collectorBinary(): string {
  const build = spawnSync('bash', [join(DIR, 'build.sh')], { encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`scripts/otel/collector/build.sh failed:\n${build.stderr}`);
  return build.stdout.trim().split('\n').pop()!;
}

type OtlpValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
};
type OtlpAttribute = { key: string; value: OtlpValue };

function attributes(list: OtlpAttribute[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    out[key] =
      value.stringValue ??
      (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
      value.boolValue ??
      value.doubleValue ??
      JSON.stringify(value);
  }
  return out;
}

export async function startCollector(): Promise<RunningCollector> {
  const binary = collectorBinary();
  const dir = mkdtempSync(join(tmpdir(), 'otelcol-'));
  const output = join(dir, 'spans.json');
  const port = await freePort();
  const proc: ChildProcess = spawn(binary, ['--config', join(DIR, 'config.yaml')], {
    env: { ...process.env, OTELCOL_HTTP_ENDPOINT: `127.0.0.1:${port}`, OTELCOL_OUTPUT: output },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  proc.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const endpoint = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      if (proc.exitCode !== null) throw new Error(`the collector exited ${proc.exitCode}:\n${log}`);
      const answer = await fetch(`${endpoint}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }).catch(() => undefined);
      return answer !== undefined;
    },
    { what: 'the collector to listen', timeoutMs: 30_000 },
  );
  return {
    endpoint,
    spans: () => {
      if (!existsSync(output)) return [];
      const spans: ReceivedSpan[] = [];
      for (const line of readFileSync(output, 'utf8').split('\n')) {
        if (!line.trim()) continue;
        const batch = JSON.parse(line) as {
          resourceSpans?: {
            resource?: { attributes?: OtlpAttribute[] };
            scopeSpans?: {
              spans?: {
                traceId: string;
                spanId: string;
                parentSpanId?: string;
                name: string;
                attributes?: OtlpAttribute[];
                links?: { traceId: string; spanId: string }[];
                status?: { code?: number; message?: string };
              }[];
            }[];
          }[];
        };
        for (const rs of batch.resourceSpans ?? []) {
          const resource = attributes(rs.resource?.attributes);
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId ?? '',
                name: s.name,
                attributes: attributes(s.attributes),
                links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
                resource,
                ...(s.status ? { status: s.status } : {}),
              });
            }
          }
        }
      }
      return spans;
    },
    stop: async () => {
      if (proc.exitCode === null) {
        const exited = new Promise((resolve) => proc.once('exit', resolve));
        proc.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
