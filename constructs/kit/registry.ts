/** A list of kinds, looked up by apiVersion and kind: what the renderer and the controller are given. */
import { kindKey } from './api-kind';
import type { Kind } from './kind';

export class KindRegistry {
  readonly kinds: readonly Kind[];
  private readonly byKey = new Map<string, Kind>();

  /** Throws naming the kinds that clash: two kinds with one apiVersion and kind, or one CRD name. */
  constructor(kinds: readonly Kind[]) {
    const crdNames = new Map<string, Kind>();
    for (const kind of kinds) {
      const key = kindKey(kind);
      const crdName = kind.crd.metadata.name;
      if (this.byKey.has(key)) throw new Error(`kind ${key} is defined twice`);
      const clash = crdNames.get(crdName);
      if (clash) throw new Error(`kinds ${kindKey(clash)} and ${key} share the CRD name ${crdName}`);
      // Found by every version: a resource or an owner reference of another version is the same kind.
      for (const { name } of kind.versions) {
        this.byKey.set(kindKey({ apiVersion: `${kind.group}/${name}`, kind: kind.kind }), kind);
      }
      this.byKey.set(key, kind);
      crdNames.set(crdName, kind);
    }
    this.kinds = [...kinds];
  }

  /**
   * The kind registered for an apiVersion and kind, if any: by any of its versions (convert a resource of
   * another version with `kind.convert` before building it).
   */
  get(apiVersion: string, kind: string): Kind | undefined {
    return this.byKey.get(kindKey({ apiVersion, kind }));
  }

  /** `apiVersion Kind, ...`, for messages about an unknown kind. */
  describe(): string {
    return this.kinds.map((k) => `${k.apiVersion} ${k.kind}`).join(', ');
  }
}
