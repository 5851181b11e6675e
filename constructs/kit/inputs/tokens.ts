/**
 * Placeholders for inputs not known yet, as AWS CDK's tokens: the construct renders with them as it would
 * with the values, and the kit finds them in what it rendered. A child that holds one waits; the others
 * go ahead. A string placeholder is a DNS label (`reconstruct-pending-input-0`), so that it passes where a
 * name or a label value goes, and can be found inside a longer string (`https://<host>/`); a number
 * placeholder is a double with a bit pattern no count or port has (-1.3e303, its index in the low bits),
 * which JSON keeps exactly. The same input has the same placeholder in every render: a construct that
 * hashes it gets the same hash each time (but not the value's: read `isKnown` before computing with one).
 */
import type { Inputs, InputValue, InputValues } from './declare';

const STRING_PREFIX = 'reconstruct-pending-input-';
const STRING_PATTERN = /reconstruct-pending-input-(\d+)/g;
/** The high 32 bits of a number placeholder: a negative double near -1.3e303. */
const NUMBER_MARK = 0xfeedc0de;

const numberPlaceholder = (index: number): number => {
  const view = new DataView(new ArrayBuffer(8));
  view.setUint32(0, NUMBER_MARK);
  view.setUint32(4, index);
  return view.getFloat64(0);
};

/** The index of the input a number stands for, when it is a placeholder. */
const numberIndex = (value: number): number | undefined => {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  return view.getUint32(0) === NUMBER_MARK ? view.getUint32(4) : undefined;
};

/** Whether an input's value is known: false for the placeholder the construct gets until it is. */
export function isKnown(value: InputValue): boolean {
  return typeof value === 'number' ? numberIndex(value) === undefined : !value.includes(STRING_PREFIX);
}

/** `props.inputs` for a render: each known value, a placeholder for the rest. */
export function inputValues<I extends Inputs>(
  inputs: I,
  known: Readonly<Record<string, InputValue>>,
): InputValues<I> {
  const values: Record<string, InputValue> = {};
  Object.entries(inputs).forEach(([name, input], index) => {
    values[name] = Object.hasOwn(known, name)
      ? known[name]
      : input.as === 'number'
        ? numberPlaceholder(index)
        : `${STRING_PREFIX}${index}`;
  });
  return values as InputValues<I>;
}

/** Walks every string and number of a JSON value, replacing each with what `visit` returns. */
function mapLeaves(value: unknown, visit: (leaf: string | number) => unknown): unknown {
  if (typeof value === 'string' || typeof value === 'number') return visit(value);
  if (Array.isArray(value)) return value.map((v) => mapLeaves(v, visit));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [mapLeaves(k, visit) as string, mapLeaves(v, visit)]),
    );
  }
  return value;
}

/**
 * A number placeholder the construct turned into a string (`String(inputs.port)`, a template literal):
 * its digits, by input index. Found in strings too, so that such a child waits as well.
 */
function numbersAsText(inputs: Inputs): [number, string][] {
  return Object.values(inputs).flatMap((input, index): [number, string][] =>
    input.as === 'number' ? [[index, String(numberPlaceholder(index))]] : [],
  );
}

/** The names of the inputs whose placeholders `manifest` holds (in keys too), in declaration order. */
export function pendingInputs(inputs: Inputs, manifest: unknown): string[] {
  const names = Object.keys(inputs);
  const asText = numbersAsText(inputs);
  const found = new Set<number>();
  mapLeaves(manifest, (leaf) => {
    if (typeof leaf === 'number') {
      const index = numberIndex(leaf);
      if (index !== undefined) found.add(index);
      return leaf;
    }
    if (leaf.includes(STRING_PREFIX)) {
      for (const match of leaf.matchAll(STRING_PATTERN)) found.add(Number(match[1]));
    }
    for (const [index, text] of asText) if (leaf.includes(text)) found.add(index);
    return leaf;
  });
  return [...found].sort((a, b) => a - b).flatMap((i) => (names[i] !== undefined ? [names[i]] : []));
}

/** `manifest` with each placeholder written as `<input:NAME>`: offline output that shows what is pending. */
export function markPending<T>(inputs: Inputs, manifest: T): T {
  const names = Object.keys(inputs);
  const asText = numbersAsText(inputs);
  const mark = (index: number) => `<input:${names[index] ?? index}>`;
  return mapLeaves(manifest, (leaf) => {
    if (typeof leaf === 'number') {
      const index = numberIndex(leaf);
      return index === undefined ? leaf : mark(index);
    }
    let text = leaf.includes(STRING_PREFIX)
      ? leaf.replace(STRING_PATTERN, (_, i: string) => mark(Number(i)))
      : leaf;
    for (const [index, digits] of asText) text = text.split(digits).join(mark(index));
    return text;
  }) as T;
}
