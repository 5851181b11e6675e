/**
 * The API server's errors as it prints them (k8s.io/apimachinery pkg/util/validation/field): the error
 * types and their words, how a bad value is shown (Go's formatting of it), and field paths. Every check
 * of offline admission reports through `issue`, so all of them word their errors the same way.
 */
import { isObject, type Json } from '../defaults';

/** One problem, as `kubectl apply` would print it: `<field>: <message>`. */
export interface FieldError {
  /** Kubernetes field path, e.g. `spec.backends[0].weight`; '' for the object itself (kubectl prints `<nil>`). */
  field: string;
  /** The API server's words, e.g. `Invalid value: 0: spec.size in body should be greater than or equal to 1`. */
  message: string;
}

// The field.ErrorType values the API server uses here, with the words it prints for them.
const WORDS = {
  Required: 'Required value',
  Forbidden: 'Forbidden',
  TooLong: 'Too long',
  TooMany: 'Too many',
  Invalid: 'Invalid value',
  TypeInvalid: 'Invalid value',
  NotSupported: 'Unsupported value',
  Duplicate: 'Duplicate value',
} as const;
export type ErrorType = keyof typeof WORDS;

/** field.OmitValueType: the error body names no value. */
export const OMIT = Symbol('omit');
export type BadValue = Json | typeof OMIT;

/** A FieldError with its type, which decides what else runs (see rules.ts). */
export interface Issue extends FieldError {
  type: ErrorType;
}

/** Go's json.Marshal: sorted keys, and <, > and & escaped. */
export function goJson(value: Json): string {
  const sorted = (v: Json): Json =>
    Array.isArray(v)
      ? v.map(sorted)
      : isObject(v)
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sorted(v[k])]),
          )
        : v;
  return JSON.stringify(sorted(value)).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
}

/** How field.Error prints a bad value: %v for numbers and booleans, %q for strings, JSON otherwise. */
export function goValue(value: Json): string {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  return goJson(value);
}

/** field.Error.ErrorBody(): Required, Forbidden and TooLong never print the value. */
export function issue(type: ErrorType, field: string, value: BadValue, detail = ''): Issue {
  let message: string = WORDS[type];
  if (type !== 'Required' && type !== 'Forbidden' && type !== 'TooLong' && value !== OMIT) {
    message += `: ${goValue(value)}`;
  }
  if (detail) message += `: ${detail}`;
  return { type, field, message };
}

// field.Path rendering, with '' standing for the nil path.
export const child = (path: string, name: string): string => (path ? `${path}.${name}` : name);
export const index = (path: string, i: number): string => `${path}[${i}]`;
export const key = (path: string, k: string): string => `${path}[${k}]`;

/** The public view of an issue: its type only matters inside the validation. */
export function strip({ field, message }: Issue): FieldError {
  return { field, message };
}
