/**
 * The kinds module (`reconstruct controller --kinds dist/bench/external/kinds.js`) of the benchmark and the
 * cluster test of external work: `ZoneRecord`, a record in a DNS provider's zone kept over HTTP
 * (provider-server.ts), as an author would write a kind against a real provider: `fetch` with the
 * handler's signal, the endpoint and token from a Secret. Two versions, so that reading v1alpha1 goes
 * through the controller's conversion webhook, in the same process as the handlers: v1 (stored, the hub)
 * calls the record's name `name`, v1alpha1 `host`.
 */
import { defineKind, ExternalError, type KindExternal, type KindVersion } from '../../index';

export interface ZoneRecordSpec {
  zone: string;
  name: string;
  /** @default 300 */
  ttl?: number;
  values: string[];
}
export interface ZoneRecordV1alpha1Spec {
  zone: string;
  host: string;
  ttl?: number;
  values: string[];
}
export interface ZoneRecordStatus {
  serial?: number;
}
type Stored = Required<ZoneRecordSpec>;

interface WantedRecord {
  fqdn: string;
  ttl: number;
  values: string[];
}
type FoundRecord = WantedRecord & { serial: number };

/** The Secret with the provider's `endpoint` (not secret: in messages as it is) and `token`. */
export const PROVIDER_SECRET = 'zone-provider';
/** What the handlers say while the provider does not answer: Ready's reason. */
export const UNREACHABLE = 'ProviderUnreachable';
/**
 * Handlers at once: enough that 200 resources of a provider answering in 2 s are mostly in flight, not
 * waiting for a slot, and that a provider back after an outage is looked at by all of them in one round.
 */
export const ZONE_RECORD_CONCURRENCY = 200;

type Secrets = Readonly<Record<string, Readonly<Record<string, string>>>>;

/** One request to the provider; its refusals and silences in the kind's words. */
async function call(
  secrets: Secrets,
  signal: AbortSignal,
  method: 'GET' | 'PUT' | 'DELETE',
  fqdn: string,
  body?: unknown,
): Promise<Response> {
  const { endpoint, token } = secrets.provider;
  let res: Response;
  try {
    res = await fetch(`${endpoint}/records/${encodeURIComponent(fqdn)}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal,
    });
  } catch (err) {
    if (signal.aborted) throw err; // the kit's timeout or its stop: it says which
    throw new ExternalError(UNREACHABLE, `the provider at ${endpoint} does not answer`);
  }
  if (res.status === 401) throw new ExternalError('AccessDenied', 'the provider refused the token');
  if (res.status >= 500) throw new Error(`the provider failed: ${res.status} ${await res.text()}`);
  return res;
}

const zoneRecordExternal: KindExternal<Stored, FoundRecord, WantedRecord> = {
  describe: (d) => `zone record ${d.fqdn}`,
  secrets: { provider: { name: PROVIDER_SECRET, keys: ['endpoint', 'token'], plainKeys: ['endpoint'] } },
  desired: (r) => ({
    fqdn: `${r.spec.name}.${r.spec.zone}`,
    ttl: r.spec.ttl,
    values: [...r.spec.values].sort(),
  }),
  async observe(d, { signal, secrets }) {
    const res = await call(secrets, signal, 'GET', d.fqdn);
    if (res.status === 404) return undefined;
    const found = (await res.json()) as { ttl: number; values: string[]; serial: number };
    return { fqdn: d.fqdn, ttl: found.ttl, values: [...found.values].sort(), serial: found.serial };
  },
  async apply(d, observed, { signal, secrets }) {
    const record = { ttl: d.ttl, values: d.values, serial: (observed?.serial ?? 0) + 1 };
    const res = await call(secrets, signal, 'PUT', d.fqdn, record);
    if (!res.ok) throw new Error(`the provider refused the record: ${res.status} ${await res.text()}`);
  },
  async delete(o, { signal, secrets }) {
    const res = await call(secrets, signal, 'DELETE', o.fqdn);
    if (!res.ok && res.status !== 404) throw new Error(`the provider refused: ${res.status}`);
  },
  concurrency: ZONE_RECORD_CONCURRENCY,
};

const zoneRecordV1alpha1: KindVersion<Stored, ZoneRecordStatus, ZoneRecordV1alpha1Spec, ZoneRecordStatus> = {
  name: 'v1alpha1',
  schema: {
    spec: {
      type: 'object',
      required: ['zone', 'host', 'values'],
      properties: {
        zone: { type: 'string', pattern: '^[a-z0-9.-]+$' },
        host: { type: 'string', pattern: '^[a-z0-9-]+$' },
        ttl: { type: 'integer', minimum: 30, default: 300 },
        values: { type: 'array', items: { type: 'string' }, minItems: 1 },
      },
    },
    status: { serial: { type: 'integer' } },
  },
  toHub: ({ spec: { host, ...rest }, status }) => ({
    spec: { ...rest, name: host } as Stored,
    ...(status ? { status } : {}),
  }),
  fromHub: ({ spec: { name, ...rest }, status }) => ({
    spec: { ...rest, host: name },
    ...(status ? { status } : {}),
  }),
};

export const zoneRecordKind = defineKind<ZoneRecordSpec, ZoneRecordStatus, Stored, FoundRecord, WantedRecord>(
  {
    apiVersion: 'zones.example.com/v1',
    kind: 'ZoneRecord',
    plural: 'zonerecords',
    schema: {
      description: 'A record in a DNS provider zone, kept over HTTP.',
      spec: {
        type: 'object',
        required: ['zone', 'name', 'values'],
        properties: {
          zone: { type: 'string', pattern: '^[a-z0-9.-]+$' },
          name: { type: 'string', pattern: '^[a-z0-9-]+$' },
          ttl: { type: 'integer', minimum: 30, default: 300 },
          values: { type: 'array', items: { type: 'string' }, minItems: 1 },
        },
      },
      status: { serial: { type: 'integer' } },
    },
    children: [],
    external: zoneRecordExternal,
    versions: [zoneRecordV1alpha1],
    status: ({ observed }) => (observed ? { serial: observed.serial } : {}),
  },
);

export const kinds = [zoneRecordKind];
