/**
 * The CEL side of offline validation: turns JSON values into the CEL values the API server would bind to
 * `self`, and evaluates `x-kubernetes-validations` rules with @bufbuild/cel (see docs/VALIDATION.md).
 */
import { celEnv, isCelError, parse, plan } from '@bufbuild/cel';
import type { CelEnv } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import type { JSONSchemaProps } from '../constructs/kit/schema';
import type { Json } from '../constructs/kit/defaults';

/** What a JSON value becomes in CEL: int is bigint, double is number, objects are maps. */
export type CelIn = null | boolean | bigint | number | string | CelIn[] | Map<string, CelIn>;

/** The outcome of one rule: it held, it did not, or it could not be compiled or evaluated. */
export type RuleOutcome =
  | { kind: 'pass' }
  | { kind: 'fail' }
  | { kind: 'compile-error'; message: string }
  | { kind: 'eval-error'; message: string };

// Kubernetes enables the strings extension for CRD rules (among others that @bufbuild/cel lacks).
let env: CelEnv | undefined;
type Program = ReturnType<typeof plan>;
// Rules come from a handful of CRDs, so the cache stays small; compiling is what costs.
const programs = new Map<string, Program | Error>();

function compile(rule: string): Program | Error {
  let program = programs.get(rule);
  if (program === undefined) {
    env ??= celEnv({ funcs: strings });
    try {
      program = plan(env, parse(rule));
    } catch (err) {
      program = err instanceof Error ? err : new Error(String(err));
    }
    programs.set(rule, program);
  }
  return program;
}

/** Parses a rule without evaluating it: the error message, or undefined when it parses. */
export function ruleSyntaxError(rule: string): string | undefined {
  const program = compile(rule);
  return program instanceof Error ? program.message : undefined;
}

/** Evaluates `rule` with `self` bound; never throws. */
export function evaluateRule(rule: string, self: CelIn): RuleOutcome {
  const program = compile(rule);
  if (program instanceof Error) return { kind: 'compile-error', message: program.message };
  let result: unknown;
  try {
    result = program({ self });
  } catch (err) {
    result = err;
  }
  if (isCelError(result) || result instanceof Error) {
    return { kind: 'eval-error', message: celErrorMessage(result.message) };
  }
  if (typeof result !== 'boolean') {
    // The API server's type checker rejects such a rule when the CRD is created.
    return { kind: 'compile-error', message: 'rule must evaluate to a bool' };
  }
  return { kind: result ? 'pass' : 'fail' };
}

/** cel-go's wording for the errors users meet most, so messages read like the API server's. */
function celErrorMessage(message: string): string {
  return message.replace(/^field not found: /, 'no such key: ');
}

const RESERVED = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

/**
 * The name under which a CRD property is visible in CEL, as the API server escapes it (`x-y` is
 * `x__dash__y`), or undefined when CEL cannot reach it at all.
 */
export function escapeCelName(name: string): string | undefined {
  if (name === '' || /^[0-9]/.test(name)) return undefined;
  if (RESERVED.has(name)) return `__${name}__`;
  let ok = true;
  const escaped = name.replace(/__|[-./]|[^a-zA-Z0-9\-./_]/g, (s) => {
    switch (s) {
      case '__':
        return '__underscores__';
      case '.':
        return '__dot__';
      case '-':
        return '__dash__';
      case '/':
        return '__slash__';
      default:
        ok = false;
        return '';
    }
  });
  return ok ? escaped : undefined;
}

/**
 * The CEL value of `value` typed by `schema`: integers are CEL ints and `number` fields doubles even when
 * whole, objects with properties expose only those (escaped), maps keep their keys as they are, and
 * untyped (preserve-unknown-fields) data is dynamically typed.
 */
export function toCel(value: Json, schema: JSONSchemaProps | undefined): CelIn {
  if (value === null) return null;
  if (Array.isArray(value)) return value.map((item) => toCel(item, schema?.items));
  switch (typeof value) {
    case 'number':
      if (schema?.type === 'number') return value;
      return Number.isSafeInteger(value) ? BigInt(value) : value;
    case 'string':
    case 'boolean':
      return value;
  }
  const map = new Map<string, CelIn>();
  if (schema?.properties) {
    for (const [name, child] of Object.entries(value)) {
      const propSchema = schema.properties[name];
      const celName = propSchema && escapeCelName(name);
      if (celName) map.set(celName, toCel(child, propSchema));
    }
    return map;
  }
  const valueSchema =
    typeof schema?.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  for (const [key, child] of Object.entries(value)) map.set(key, toCel(child, valueSchema));
  return map;
}
