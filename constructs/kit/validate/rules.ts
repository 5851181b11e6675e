/**
 * x-kubernetes-validations (apiextensions-apiserver pkg/apiserver/schema/cel): walks the object and runs
 * each node's CEL rules, transition rules against the correlated old value, ratcheting on update, and words
 * a failure as the API server does (`message`, `messageExpression`, `reason`, `fieldPath`). Compiling and
 * evaluating one expression is cel.ts's part.
 */
import { isObject, valueSchema, type Json, type JsonObject } from '../defaults';
import type { JSONSchemaProps, ValidationRule } from '../schema';
import { evaluateMessageExpression, evaluateRule, toCel, usesOldSelf, type CelIn } from './cel';
import { mapListOf, type Correlation } from './correlation';
import { OMIT, child, index, issue, key, type BadValue, type ErrorType, type Issue } from './field';

/**
 * The API server's note, on no field, that it ran no CEL rule because of the errors before it: the
 * offline output leaves it out (synth/render.ts), since it names no field and adds nothing to them.
 */
export const RULES_NOT_CHECKED =
  'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

// An error of one of these types makes the API server skip every CEL rule (hasBlockingErr).
const BLOCKING = new Set<ErrorType>(['NotSupported', 'Required', 'TooLong', 'TooMany', 'TypeInvalid']);

/**
 * The CEL rules of the whole object, run last: when `out` already holds an error of a blocking type, no
 * rule runs and the API server's note says so instead (only for a schema that has rules). On update,
 * `old` is the stored object and `correlation` ties each node of the new object to it.
 */
export function validateObjectRules(
  object: JsonObject,
  schema: JSONSchemaProps,
  out: Issue[],
  old?: JsonObject,
  correlation?: Correlation,
): void {
  if (!hasRules(schema)) return;
  if (out.some((i) => BLOCKING.has(i.type))) {
    out.push(issue('Invalid', '', null, RULES_NOT_CHECKED));
  } else {
    validateRules(object, schema, '', true, out, { old, current: correlation });
  }
}

function hasRules(s: JSONSchemaProps | undefined): boolean {
  if (!s) return false;
  return (
    (s['x-kubernetes-validations']?.length ?? 0) > 0 ||
    hasRules(s.items) ||
    hasRules(valueSchema(s)) ||
    Object.values(s.properties ?? {}).some(hasRules)
  );
}

/** model.WithTypeAndObjectMeta: at the root, CEL sees apiVersion, kind and only metadata.name/generateName. */
function withTypeAndObjectMeta(s: JSONSchemaProps): JSONSchemaProps {
  const str: JSONSchemaProps = { type: 'string' };
  return {
    ...s,
    properties: {
      ...s.properties,
      apiVersion: str,
      kind: str,
      metadata: { type: 'object', properties: { name: str, generateName: str } },
    },
  };
}

function ruleText(rule: ValidationRule): string {
  return rule.message?.trim() ? rule.message.trim() : rule.rule.trim();
}

/**
 * ValidFieldPath: `.a.b['c']` relative to the rule's node, as a field.Path string (properties joined with
 * '.', map keys in brackets), or undefined when it names no field (the CRD would have been refused).
 */
function normalizeFieldPath(fieldPath: string, s: JSONSchemaProps): string | undefined {
  const tokens = fieldPath.match(/\[|\]|\.|'(?:[^'\\]|\\.)*'|[^.[\]']+/g) ?? [];
  let path = '';
  let node: JSONSchemaProps | undefined = s;
  const step = (name: string): boolean => {
    if (node?.properties) {
      path = child(path, name);
      node = node.properties[name];
      return node !== undefined;
    }
    const additional = valueSchema(node);
    if (!additional) return false;
    path = key(path, name);
    node = additional;
    return true;
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token === '.') {
      const name = tokens[++i];
      if (name === undefined || !step(name)) return undefined;
    } else if (token === '[') {
      const quoted = tokens[++i];
      if (quoted === undefined || !/^'.*'$/.test(quoted) || tokens[++i] !== ']') return undefined;
      if (!step(quoted.slice(1, -1).replace(/\\(.)/g, '$1'))) return undefined;
    } else {
      return undefined;
    }
  }
  return path;
}

function ruleError(
  rule: ValidationRule,
  s: JSONSchemaProps,
  value: Json,
  path: string,
  detail: string,
): Issue {
  let target = path;
  if (rule.fieldPath) {
    const relative = normalizeFieldPath(rule.fieldPath, s);
    if (relative) target = child(path, relative);
  }
  const shown: BadValue = s.type === 'object' || s.type === 'array' ? OMIT : value;
  switch (rule.reason) {
    case 'FieldValueForbidden':
      return issue('Forbidden', target, '', detail);
    case 'FieldValueRequired':
      return issue('Required', target, '', detail);
    case 'FieldValueDuplicate':
      return issue('Duplicate', target, shown);
    default:
      return issue('Invalid', target, shown, detail);
  }
}

/** ruleMessageOrDefault: the rule's message, or `failed rule: <rule>`. */
function ruleMessage(rule: ValidationRule): string {
  return rule.message?.trim() ? rule.message.trim() : `failed rule: ${ruleText(rule)}`;
}

/**
 * Where the CEL rules walk stands on update: the old value correlated with the node (undefined when there
 * is none, and always on create), and the ratcheting state (ratchetingOptions): the node's correlation
 * and the nearest ancestor that had one.
 */
interface RuleContext {
  old: Json | undefined;
  current?: Correlation;
  parent?: Correlation;
}

/** ratchetingOptions.key: the context of a property or map value. */
function keyContext(ctx: RuleContext, old: Json | undefined, field: string, root: boolean): RuleContext {
  if (!ctx.current) return { ...ctx, old };
  // apiVersion and kind are not ratcheted: both objects are converted to the same ones.
  if (root && (field === 'apiVersion' || field === 'kind')) return { old };
  return { old, current: ctx.current.key(field), parent: ctx.current };
}

/** ratchetingOptions.index: the context of a list item. */
function indexContext(ctx: RuleContext, old: Json | undefined, i: number): RuleContext {
  if (!ctx.current) return { ...ctx, old };
  return { old, current: ctx.current.index(i), parent: ctx.current };
}

/** shouldRatchetError: whether the node, or else its nearest correlated ancestor, is unchanged. */
function ratcheted(ctx: RuleContext): boolean {
  return (ctx.current ?? ctx.parent)?.unchanged() ?? false;
}

/**
 * Validator.validate: a node's own rules on its non-null value, then its items, map values and fields.
 * On update, transition rules (those using `oldSelf`) run with `oldSelf` bound to the correlated old
 * value and are skipped where there is none; on create they are skipped. A failing rule that does not use
 * `oldSelf` is ratcheted when its node (or else the nearest ancestor that correlates) is unchanged.
 */
function validateRules(
  value: Json,
  s: JSONSchemaProps,
  path: string,
  root: boolean,
  out: Issue[],
  ctx: RuleContext,
): void {
  if (value === null) return;
  const rules = s['x-kubernetes-validations'] ?? [];
  if (rules.length > 0) {
    const schema = root ? withTypeAndObjectMeta(s) : s;
    const self = toCel(value, schema);
    // The API server binds oldSelf when some rule of the node uses it and an old value correlates.
    const old = ctx.old ?? null;
    const oldSelf: CelIn | undefined =
      old !== null && rules.some((r) => usesOldSelf(r.rule)) ? toCel(old, schema) : undefined;
    const type = s.type ?? '';
    for (const rule of rules) {
      const transition = usesOldSelf(rule.rule);
      // Transition rules need an old value. With optionalOldSelf the API server runs them anyway, with
      // oldSelf an optional; @bufbuild/cel has no optionals, so they are skipped (docs/VALIDATION.md).
      if (transition && (oldSelf === undefined || rule.optionalOldSelf)) continue;
      const outcome = evaluateRule(rule.rule, self, oldSelf);
      if (outcome.kind === 'compile-error') {
        out.push(issue('Invalid', path, type, `rule compile error: ${outcome.message}`));
      } else if (outcome.kind === 'eval-error') {
        out.push(issue('Invalid', path, type, `${outcome.message} evaluating rule: ${ruleText(rule)}`));
      } else if (outcome.kind === 'fail' && (transition || !ratcheted(ctx))) {
        const message =
          rule.messageExpression === undefined
            ? undefined
            : evaluateMessageExpression(rule.messageExpression, self, oldSelf);
        out.push(ruleError(rule, s, value, path, message ?? ruleMessage(rule)));
      }
    }
  }
  if (Array.isArray(value)) {
    const items = s.items;
    if (items) {
      // Only the items of a list-type map correlate with old ones, by their keys.
      const oldItems = mapListOf(s, ctx.old);
      value.forEach((item, i) =>
        validateRules(item, items, index(path, i), false, out, indexContext(ctx, oldItems?.get(item), i)),
      );
    }
  } else if (isObject(value)) {
    const old = isObject(ctx.old) ? ctx.old : undefined;
    const additional = valueSchema(s);
    if (additional) {
      for (const [k, v] of Object.entries(value)) {
        validateRules(v, additional, key(path, k), false, out, keyContext(ctx, old?.[k], k, root));
      }
    }
    for (const [p, prop] of Object.entries(s.properties ?? {})) {
      const v = value[p];
      if (v !== undefined) {
        validateRules(v, prop, child(path, p), false, out, keyContext(ctx, old?.[p], p, root));
      }
    }
  }
}
