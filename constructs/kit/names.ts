/**
 * The name rules of Kubernetes, once: DNS-1123 labels and subdomains, RFC 1035 labels, label values and
 * qualified names (label and annotation keys, finalizers), with their length limits. The formats are
 * apimachinery's (pkg/util/validation), unanchored as its error messages quote them; the anchored patterns
 * are for schema fields; the predicates check the length and the pattern together.
 */

/** The longest DNS label (RFC 1123 or RFC 1035), label value, or name part of a qualified name. */
export const MAX_LABEL_LENGTH = 63;
/** The longest DNS-1123 subdomain: what most object names, API groups and key prefixes are. */
export const MAX_SUBDOMAIN_LENGTH = 253;

/** An RFC 1123 label: lower-case alphanumerics and '-', alphanumeric at both ends. */
export const DNS1123_LABEL_FORMAT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
/** An RFC 1123 subdomain: RFC 1123 labels joined by '.'. */
export const DNS1123_SUBDOMAIN_FORMAT = `${DNS1123_LABEL_FORMAT}(\\.${DNS1123_LABEL_FORMAT})*`;
/** An RFC 1035 label: an RFC 1123 label that starts with a letter (Service names, CRD plurals). */
export const DNS1035_LABEL_FORMAT = '[a-z]([-a-z0-9]*[a-z0-9])?';
/** The name part of a qualified name: alphanumerics, '-', '_' and '.', alphanumeric at both ends. */
export const QUALIFIED_NAME_FORMAT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
/** A label value: empty, or a qualified name's name part. */
export const LABEL_VALUE_FORMAT = `(${QUALIFIED_NAME_FORMAT})?`;

const whole = (format: string): string => `^${format}$`;

/** A DNS-1123 label, as a schema pattern: what a Service or a Deployment-derived name must be. */
export const DNS_LABEL = whole(DNS1123_LABEL_FORMAT);
/** A DNS-1123 subdomain, as a schema pattern: what most object names must be. */
export const DNS_SUBDOMAIN = whole(DNS1123_SUBDOMAIN_FORMAT);
/** A label value, as a schema pattern: empty, or 63 characters of alphanumerics, '-', '_' and '.', alphanumeric at both ends. */
export const LABEL_VALUE = whole(LABEL_VALUE_FORMAT);
/**
 * A qualified label key, as a schema pattern: an optional DNS subdomain prefix and '/', then a name part of
 * at most 63 characters (the prefix's 253 a pattern cannot say: a schema adds it).
 */
export const LABEL_KEY = `^(${DNS1123_SUBDOMAIN_FORMAT}/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,${MAX_LABEL_LENGTH - 2}}[A-Za-z0-9])?$`;

const DNS1123_LABEL_RE = new RegExp(DNS_LABEL);
const DNS1123_SUBDOMAIN_RE = new RegExp(DNS_SUBDOMAIN);
const DNS1035_LABEL_RE = new RegExp(whole(DNS1035_LABEL_FORMAT));
const QUALIFIED_NAME_RE = new RegExp(whole(QUALIFIED_NAME_FORMAT));
const LABEL_VALUE_RE = new RegExp(LABEL_VALUE);

/** Whether `value` is a DNS-1123 label of at most 63 characters (a namespace, a StatefulSet's name). */
export function isDns1123Label(value: string): boolean {
  return value.length <= MAX_LABEL_LENGTH && DNS1123_LABEL_RE.test(value);
}

/** Whether `value` is a DNS-1123 subdomain of at most 253 characters (most object names, an API group). */
export function isDns1123Subdomain(value: string): boolean {
  return value.length <= MAX_SUBDOMAIN_LENGTH && DNS1123_SUBDOMAIN_RE.test(value);
}

/** Whether `value` is an RFC 1035 label of at most 63 characters (a Service's name, a CRD's plural). */
export function isDns1035Label(value: string): boolean {
  return value.length <= MAX_LABEL_LENGTH && DNS1035_LABEL_RE.test(value);
}

/** Whether `value` is a label value: empty, or at most 63 characters of the qualified name's alphabet. */
export function isLabelValue(value: string): boolean {
  return value.length <= MAX_LABEL_LENGTH && LABEL_VALUE_RE.test(value);
}

/**
 * Whether `value` is a qualified name (a label or annotation key, a finalizer): a name part of at most 63
 * characters, after an optional DNS-1123 subdomain prefix and '/'.
 */
export function isQualifiedName(value: string): boolean {
  const slash = value.indexOf('/');
  const [prefix, name] = slash < 0 ? [undefined, value] : [value.slice(0, slash), value.slice(slash + 1)];
  if (prefix !== undefined && !isDns1123Subdomain(prefix)) return false;
  return name.length <= MAX_LABEL_LENGTH && QUALIFIED_NAME_RE.test(name);
}
