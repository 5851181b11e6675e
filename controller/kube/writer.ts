/** The requests the reconciler makes beyond its caches: writes, and the odd read to check for a foreign object. */
import type { ApiKind, CustomResource, Manifest } from '../../constructs/kit';
import type { KubeClient } from './client';
import type { KubeRequest } from './http';
import { isNotFound } from './errors';
import { resourcePath } from './paths';

const APPLY = 'application/apply-patch+yaml';
const MERGE = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';

/**
 * A server-side apply with force, of a body made by JSON.stringify. `fieldValidation=Ignore`: with the API
 * server's default (Warn) it parses an apply's YAML twice, the second time strictly, and that pass only
 * finds duplicate keys (an apply's unknown fields are refused by the object's schema whatever the
 * setting: test/controller/informer.cluster.test.ts), which JSON.stringify never writes. One YAML parse
 * less per write: 12 % of the API server's CPU for an apply of Memcached's Deployment (docs/BENCHMARKS.md).
 */
export function applyRequest(path: string, body: unknown, fieldManager: string): KubeRequest {
  return {
    method: 'PATCH',
    path,
    query: { fieldManager, force: true, fieldValidation: 'Ignore' },
    body,
    contentType: APPLY,
  };
}

/**
 * What the reconciler writes through (and reads with, the odd time): KubeWriter against the API server, a
 * dry run of it (`reconstruct diff`), the in-memory cluster's recorder (`cdk8s-reconstruct/testing`).
 */
export interface Writer {
  /** The field manager of server-side applies. */
  readonly fieldManager: string;
  /** The object as the API server has it now, or undefined when there is none. */
  read<T = Manifest>(type: ApiKind, namespace: string | undefined, name: string): Promise<T | undefined>;
  /** Server-side apply with force, under `fieldManager` (default: this writer's). */
  apply(type: ApiKind, body: Manifest, fieldManager?: string): Promise<Manifest>;
  /** Applies the status subresource: the fields we stop setting are removed. */
  applyStatus(
    type: ApiKind,
    resource: Pick<CustomResource, 'apiVersion' | 'kind' | 'metadata'>,
    status: Record<string, unknown>,
  ): Promise<unknown>;
  /** A JSON merge patch; with metadata.resourceVersion in it, it fails with 409 if the object changed. */
  mergePatch(type: ApiKind, namespace: string | undefined, name: string, patch: unknown): Promise<unknown>;
  /** A JSON patch (RFC 6902): with a `test` of metadata.resourceVersion, it fails if the object changed. */
  jsonPatch(type: ApiKind, namespace: string | undefined, name: string, ops: unknown[]): Promise<unknown>;
  /** Deletes exactly the object of that uid: a newer one of the same name is spared. */
  delete(type: ApiKind, namespace: string | undefined, name: string, uid: string): Promise<unknown>;
  /** Creates the object; fails with 409 when one of that name exists (it never overwrites). */
  create(type: ApiKind, namespace: string | undefined, body: unknown): Promise<unknown>;
}

/** The Writer against the API server, through the client. */
export class KubeWriter implements Writer {
  constructor(
    private readonly client: KubeClient,
    readonly fieldManager: string,
  ) {}

  /** The object as the API server has it now, or undefined when there is none. */
  async read<T = Manifest>(
    type: ApiKind,
    namespace: string | undefined,
    name: string,
  ): Promise<T | undefined> {
    try {
      return await this.client.request<T>({ method: 'GET', path: resourcePath(type, namespace, name) });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /**
   * Server-side apply with force: we own the fields we set, whoever set them before. `fieldManager` names
   * another manager of ours (the one that keeps the initial values of a child's ignored fields).
   */
  apply(type: ApiKind, body: Manifest, fieldManager = this.fieldManager): Promise<Manifest> {
    const { namespace, name } = body.metadata;
    return this.client.request<Manifest>(
      applyRequest(resourcePath(type, type.namespaced ? namespace : undefined, name), body, fieldManager),
    );
  }

  /** Applies the status subresource: the fields we stop setting are removed. */
  applyStatus(
    type: ApiKind,
    resource: Pick<CustomResource, 'apiVersion' | 'kind' | 'metadata'>,
    status: Record<string, unknown>,
  ): Promise<unknown> {
    const { name, namespace } = resource.metadata;
    const body = {
      apiVersion: resource.apiVersion,
      kind: resource.kind,
      metadata: { name, namespace },
      status,
    };
    return this.client.request(
      applyRequest(resourcePath(type, namespace, name, 'status'), body, this.fieldManager),
    );
  }

  /** A JSON merge patch; with metadata.resourceVersion in it, it fails with 409 if the object changed. */
  mergePatch(type: ApiKind, namespace: string | undefined, name: string, patch: unknown): Promise<unknown> {
    return this.client.request({
      method: 'PATCH',
      path: resourcePath(type, namespace, name),
      query: { fieldManager: this.fieldManager },
      body: patch,
      contentType: MERGE,
    });
  }

  /** A JSON patch (RFC 6902): with a `test` of metadata.resourceVersion, it fails if the object changed. */
  jsonPatch(type: ApiKind, namespace: string | undefined, name: string, ops: unknown[]): Promise<unknown> {
    return this.client.request({
      method: 'PATCH',
      path: resourcePath(type, namespace, name),
      query: { fieldManager: this.fieldManager },
      body: ops,
      contentType: JSON_PATCH,
    });
  }

  /** Deletes exactly the object we looked at: the uid precondition spares a newer one of the same name. */
  delete(type: ApiKind, namespace: string | undefined, name: string, uid: string): Promise<unknown> {
    return this.client.request({
      method: 'DELETE',
      path: resourcePath(type, namespace, name),
      body: {
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        preconditions: { uid },
        propagationPolicy: 'Background',
      },
    });
  }

  /** Creates the object; fails with 409 when one of that name exists (it never overwrites). */
  create(type: ApiKind, namespace: string | undefined, body: unknown): Promise<unknown> {
    return this.client.request({
      method: 'POST',
      path: resourcePath(type, namespace),
      query: { fieldManager: this.fieldManager },
      body,
    });
  }
}
