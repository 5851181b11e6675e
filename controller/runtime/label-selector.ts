/**
 * A label selector in the syntax of a list's `labelSelector` parameter (`a=b,c!=d,e in (f,g),h notin
 * (i),j,!k`), read once at start so that a wrong `--watch-label-selector` is one line naming what is wrong
 * rather than every list failing, and so that the controller knows the keys it names: the labels a
 * resource passes on to its children, which then fall under the same selector. The API server's grammar
 * (apimachinery's labels.Parse), not all of its corner cases: nothing on npm parses it for Node.
 */
import { isLabelValue, isQualifiedName } from '../../constructs/kit/names';

export interface LabelSelector {
  /** As given, spaces trimmed: what the lists and watches send. */
  readonly text: string;
  /** The keys it names, each once, in order. */
  readonly keys: readonly string[];
}

const REQUIREMENT =
  /^(?:(!)\s*(\S+)|(\S+?)\s*(==|=|!=)\s*(\S*)|(\S+)\s+(in|notin)\s*\(([^)]*)\)|([^\s!=()]+))$/;

/** The selector of `text`; throws an Error saying which requirement is wrong, and why. */
export function parseLabelSelector(text: string): LabelSelector {
  const trimmed = text.trim();
  if (!trimmed) throw new Error('the selector is empty');
  const keys: string[] = [];
  for (const requirement of splitRequirements(trimmed)) {
    const m = REQUIREMENT.exec(requirement);
    if (!m)
      throw new Error(
        `"${requirement}" is not a requirement (key=value, key!=value, key in (a,b), key, !key)`,
      );
    const key = m[2] ?? m[3] ?? m[6] ?? m[9];
    const values =
      m[5] !== undefined ? [m[5]] : m[8] !== undefined ? m[8].split(',').map((v) => v.trim()) : [];
    if (!isQualifiedName(key)) throw new Error(`"${requirement}": ${JSON.stringify(key)} is not a label key`);
    const bad = values.find((v) => !isLabelValue(v));
    if (bad !== undefined) throw new Error(`"${requirement}": ${JSON.stringify(bad)} is not a label value`);
    if (m[8] !== undefined && values.every((v) => v === ''))
      throw new Error(`"${requirement}": ${m[7]} needs at least one value`);
    if (!keys.includes(key)) keys.push(key);
  }
  return { text: trimmed, keys };
}

/** The requirements of a selector: split at the commas outside parentheses. */
function splitRequirements(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    else if (text[i] === ',' && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts;
}
