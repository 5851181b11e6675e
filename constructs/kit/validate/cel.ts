/**
 * The CEL side of offline validation: turns JSON values into the CEL values the API server would bind to
 * `self` and `oldSelf`, and evaluates `x-kubernetes-validations` rules and their `messageExpression`s with
 * @bufbuild/cel (see docs/VALIDATION.md).
 */
import type * as Cel from '@bufbuild/cel';
import type * as CelExtensions from '@bufbuild/cel/ext';
import type { JSONSchemaProps } from '../schema';
import type { Json } from '../defaults';

/** What a JSON value becomes in CEL: int is bigint, double is number, objects are maps. */
export type CelIn = null | boolean | bigint | number | string | CelIn[] | Map<string, CelIn>;

/** The outcome of one rule: it held, it did not, or it could not be compiled or evaluated. */
export type RuleOutcome =
  | { kind: 'pass' }
  | { kind: 'fail' }
  | { kind: 'compile-error'; message: string }
  | { kind: 'eval-error'; message: string };

const INT64 = [-(2n ** 63n), 2n ** 63n - 1n] as const;

/**
 * `int(string)` as cel-go has it: Go's strconv.ParseInt in base 10 (an optional sign and digits, nothing
 * else), where @bufbuild/cel's BigInt() also takes spaces, `0x` and the empty string.
 */
function intOfString(cel: typeof Cel) {
  return cel.celFunc('int', [cel.CelScalar.STRING], cel.CelScalar.INT, (s: string) => {
    const n = /^[+-]?[0-9]+$/.test(s) ? BigInt(s) : undefined;
    if (n === undefined || n < INT64[0] || n > INT64[1]) {
      throw new Error("type conversion error from 'string' to 'int'");
    }
    return n;
  });
}

/**
 * @bufbuild/cel, with the environment CRD rules see, loaded on the first rule compiled: it is about 1 MB
 * of JavaScript with its protobuf and RE2 libraries (3.4 MB of heap, 8-9 MB of RSS once loaded), and the
 * controller, whose resources the API server has validated already, never evaluates a rule.
 */
let library: { cel: typeof Cel; env: Cel.CelEnv } | undefined;
function celLibrary(): { cel: typeof Cel; env: Cel.CelEnv } {
  if (!library) {
    /* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, see above */
    const cel = require('@bufbuild/cel') as typeof Cel;
    const { strings } = require('@bufbuild/cel/ext') as typeof CelExtensions;
    /* eslint-enable @typescript-eslint/no-require-imports -- the loading ends here */
    // Kubernetes enables the strings extension for CRD rules (among others that @bufbuild/cel lacks).
    library = { cel, env: cel.celEnv({ funcs: [...strings, intOfString(cel)] }) };
  }
  return library;
}

type Program = ReturnType<typeof Cel.plan>;
type Parsed = ReturnType<typeof Cel.parse>;
interface Compiled {
  program: Program;
  /** Whether the expression refers to the variable `oldSelf` (compilation.go's UsesOldSelf). */
  usesOldSelf: boolean;
}
// Rules come from a handful of CRDs, so the cache stays small; compiling is what costs.
const programs = new Map<string, Compiled | Error>();

function compile(rule: string): Compiled | Error {
  let compiled = programs.get(rule);
  if (compiled === undefined) {
    const { cel, env } = celLibrary();
    try {
      const parsed = cel.parse(rule);
      compiled = { program: cel.plan(env, parsed), usesOldSelf: refersTo(parsed.expr, 'oldSelf') };
    } catch (err) {
      compiled = err instanceof Error ? err : new Error(String(err));
    }
    programs.set(rule, compiled);
  }
  return compiled;
}

type Expr = Parsed['expr'];

/**
 * Whether `expr` has an identifier `name`, as cel-go's checker records references: `has(oldSelf.x)` refers
 * to `oldSelf`, `self.oldSelf` and `'oldSelf'` do not. A comprehension variable of that name counts too
 * (the checker records it under the same name, so the API server takes `[1].all(oldSelf, ...)` for a
 * transition rule).
 */
function refersTo(expr: Expr | undefined, name: string): boolean {
  if (!expr) return false;
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'identExpr':
      return kind.value.name === name;
    case 'selectExpr':
      return refersTo(kind.value.operand, name);
    case 'callExpr':
      return refersTo(kind.value.target, name) || kind.value.args.some((arg) => refersTo(arg, name));
    case 'listExpr':
      return kind.value.elements.some((e) => refersTo(e, name));
    case 'structExpr':
      return kind.value.entries.some(
        (entry) =>
          (entry.keyKind.case === 'mapKey' && refersTo(entry.keyKind.value, name)) ||
          refersTo(entry.value, name),
      );
    case 'comprehensionExpr': {
      const c = kind.value;
      return [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result].some((e) => refersTo(e, name));
    }
    default:
      return false;
  }
}

/** Parses a rule without evaluating it: the error message, or undefined when it parses. */
export function ruleSyntaxError(rule: string): string | undefined {
  const compiled = compile(rule);
  return compiled instanceof Error ? compiled.message : undefined;
}

/**
 * Whether the expression refers to `oldSelf`, which makes a rule a transition rule; false when it does
 * not parse (its compile error is reported instead).
 */
export function usesOldSelf(expr: string): boolean {
  const compiled = compile(expr);
  return !(compiled instanceof Error) && compiled.usesOldSelf;
}

/** The variables of an evaluation: `oldSelf` is left unbound when undefined. */
export interface Bindings {
  self: CelIn;
  oldSelf?: CelIn;
}

/** Runs a compiled expression; what it threw comes back as the result. */
function run(compiled: Compiled, bindings: Bindings): unknown {
  const vars: Record<string, CelIn> = { self: bindings.self };
  if (bindings.oldSelf !== undefined) vars.oldSelf = bindings.oldSelf;
  try {
    return compiled.program(vars);
  } catch (err) {
    return err;
  }
}

/**
 * Evaluates `rule` with `self` bound, and `oldSelf` when given (a transition rule on update); never
 * throws.
 */
export function evaluateRule(rule: string, self: CelIn, oldSelf?: CelIn): RuleOutcome {
  const compiled = compile(rule);
  if (compiled instanceof Error) return { kind: 'compile-error', message: compiled.message };
  const result = run(compiled, { self, oldSelf });
  if (celLibrary().cel.isCelError(result) || result instanceof Error) {
    return { kind: 'eval-error', message: celErrorMessage(result.message) };
  }
  if (typeof result !== 'boolean') {
    // The API server's type checker rejects such a rule when the CRD is created.
    return { kind: 'compile-error', message: 'rule must evaluate to a bool' };
  }
  return { kind: result ? 'pass' : 'fail' };
}

// celconfig.MaxEvaluatedMessageExpressionSizeBytes.
const MAX_MESSAGE_BYTES = 5 * 1024;

/**
 * Evaluates a rule's `messageExpression` as the API server does when the rule fails (evalMessageExpression):
 * the trimmed string it gives, or undefined when the API server would fall back to `message` (the
 * expression does not compile or fails, gives no string, an empty or blank one, one with a line break
 * or one longer than 5 KiB). Never throws.
 */
export function evaluateMessageExpression(expr: string, self: CelIn, oldSelf?: CelIn): string | undefined {
  const compiled = compile(expr);
  if (compiled instanceof Error) return undefined;
  const result = run(compiled, { self, oldSelf });
  if (typeof result !== 'string') return undefined;
  const message = result.trim();
  if (message === '' || message.includes('\n') || Buffer.byteLength(message, 'utf8') > MAX_MESSAGE_BYTES) {
    return undefined;
  }
  return message;
}

/** cel-go's wording for the errors users meet most, so messages read like the API server's. */
function celErrorMessage(message: string): string {
  return (
    message
      .replace(/^field not found: /, 'no such key: ')
      // A list index (@bufbuild/cel does not know the length there), then the strings extension's.
      .replace(/^index (-?\d+) out of bounds \[0, -1\)$/, 'index out of bounds: $1')
      .replace(/^index (-?\d+) out of bounds \[0, \d+\)$/, 'index out of range: $1')
  );
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
