/**
 * Schema fragments of the MysqlDatabase and MysqlUser kinds: what the server takes as a database name,
 * and a spec field that may not change once the resource exists.
 */
import type { JSONSchemaProps, ValidationRule } from '../kit';

/** The longest database name the server takes. */
export const MAX_DATABASE_NAME_LENGTH = 64;

/**
 * A database name as the server keeps it (a directory): none of `/`, `\`, `.`, no trailing space. The
 * server layer checks the rest (characters beyond U+FFFF) before sending anything.
 */
export const databaseNameSchema = (description: string): JSONSchemaProps => ({
  type: 'string',
  description,
  minLength: 1,
  maxLength: MAX_DATABASE_NAME_LENGTH,
  pattern: '^[^/\\\\.]*[^/\\\\. ]$',
});

/** A character set or collation name (`utf8mb4`, `utf8mb4_unicode_ci`). */
export const charsetSchema = (description: string, value: string): JSONSchemaProps => ({
  type: 'string',
  description,
  pattern: '^[A-Za-z0-9_]{1,64}$',
  default: value,
});

/**
 * A rule on the spec: its optional field `field` keeps the value it had at creation, given or not (a
 * default computed from the resource's name stays that default).
 */
export function immutable(field: string, why: string): ValidationRule {
  return {
    rule:
      `has(self.${field}) == has(oldSelf.${field}) && ` +
      `(!has(self.${field}) || self.${field} == oldSelf.${field})`,
    message: `${field} is immutable: ${why}`,
    fieldPath: `.${field}`,
  };
}
