/**
 * The names a scaffolded kind is made of, derived once from what the author gives (`--kind`, `--group`,
 * `--version`) and checked with one-line errors before anything is written.
 */
import { isDns1123Label, isDns1123Subdomain } from '../../constructs/kit/names';
import { kebabCase } from '../../synth/artifacts';

/** A name the author gave that cannot be used: one line, no stack. */
export class ScaffoldError extends Error {
  override name = 'ScaffoldError';
}

export interface KindNames {
  /** `WebApp`: the kind, the construct class and the start of the generated types. */
  readonly kind: string;
  /** `web-app`: the kind's folder under src/ and test/ and its sample's name, as `gen`'s `{kind}` spells it. */
  readonly folder: string;
  /** `webApp`: the start of the definition's variable (`webAppKind`) and the schema's (`webAppSchema`). */
  readonly variable: string;
  /** `webapps`: the CRD's plural. */
  readonly plural: string;
  /** `example.com`. */
  readonly group: string;
  /** `v1alpha1`. */
  readonly version: string;
}

const KIND = /^[A-Z][A-Za-z0-9]*$/;
const VERSION = /^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/;
/** What the modules that name the kind's class import or declare: a kind named so would clash with them. */
const TEMPLATE_NAMES = new Set([
  'Construct',
  'DEPLOYMENT',
  'Manifest',
  'OwnStatus',
  'ResourceProps',
  'SERVICE',
  'Testing',
]);

/** Folder names of the project's own: src/index.ts, src/kinds.ts, a kind's schema.ts, test/support/. */
const PROJECT_NAMES = new Set(['index', 'kinds', 'schema', 'support']);
/** The longest folder name (the kind in kebab case), so that the plural and the sample's name
 * (`<folder>-sample`) are DNS labels with room to spare. */
const MAX_FOLDER_LENGTH = 40;

/** A plural as kubebuilder makes one: `webapps`, `caches`, `policies`. */
function pluralOf(lower: string): string {
  if (/(s|x|z|ch|sh)$/.test(lower)) return `${lower}es`;
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}

/** `WebApp` -> `webApp`, `URLShortener` -> `urlShortener`, `DB` -> `db`. */
function lowerCamel(kind: string): string {
  return kind.replace(/^[A-Z]+(?=[A-Z][a-z]|$)|^[A-Z]/, (head) => head.toLowerCase());
}

/** Where a group or version came from, for the message: an option, or package.json. */
interface Sources {
  readonly group: string;
  readonly version: string;
}
const OPTIONS: Sources = { group: '--group', version: '--version' };

function checkGroup(group: string, source: string): string {
  const labels = group.split('.');
  if (!isDns1123Subdomain(group) || labels.length < 2 || !labels.every(isDns1123Label)) {
    throw new ScaffoldError(
      `${source} "${group}": an API group is a lower-case DNS name with at least one dot, e.g. example.com`,
    );
  }
  return group;
}

function checkVersion(version: string, source: string): string {
  if (!VERSION.test(version)) {
    throw new ScaffoldError(`${source} "${version}": a Kubernetes API version, e.g. v1, v1beta1 or v1alpha1`);
  }
  return version;
}

/** The names of kind `kind` in `group`/`version`, or a ScaffoldError saying what is wrong with one. */
export function kindNames(kind: string, group: string, version: string, sources = OPTIONS): KindNames {
  if (!KIND.test(kind)) {
    throw new ScaffoldError(
      `kind "${kind}": a kind is UpperCamelCase, a letter then letters and digits, e.g. WebApp`,
    );
  }
  const folder = kebabCase(kind);
  if (folder.length > MAX_FOLDER_LENGTH) {
    throw new ScaffoldError(
      `kind "${kind}": too long; at most ${MAX_FOLDER_LENGTH} characters as "${folder}"`,
    );
  }
  if (TEMPLATE_NAMES.has(kind)) {
    throw new ScaffoldError(
      `kind "${kind}": a class of that name would clash with the ${kind} the generated code imports`,
    );
  }
  if (kind in globalThis) {
    throw new ScaffoldError(`kind "${kind}": a class of that name would hide JavaScript's global ${kind}`);
  }
  if (PROJECT_NAMES.has(folder)) {
    throw new ScaffoldError(
      `kind "${kind}": its folder "${folder}" would clash with the project's own files`,
    );
  }
  return {
    kind,
    folder,
    variable: lowerCamel(kind),
    plural: pluralOf(kind.toLowerCase()),
    group: checkGroup(group, sources.group),
    version: checkVersion(version, sources.version),
  };
}

/** An npm package name from a folder's name: `My Operator` -> `my-operator`. */
export function packageName(folder: string): string {
  const name = folder
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+|-+$/g, '');
  return name.slice(0, 214) || 'operator';
}
