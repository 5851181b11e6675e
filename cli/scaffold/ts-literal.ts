/**
 * A JSON value as a TypeScript literal in the project's style (single quotes, trailing commas, keys
 * unquoted where they can be): how a scaffolded schema, which the CLI also uses in-process, is written
 * into the author's `schema.ts`.
 */
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** Prettier's print width in this project: an object of plain values that fits stays on one line. */
const WIDTH = 110;

function quote(text: string): string {
  return `'${JSON.stringify(text).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
}

/** `value` as TypeScript source; nested objects and arrays of objects are indented two spaces a level. */
export function tsLiteral(value: unknown, indent = ''): string {
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return JSON.stringify(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v !== 'object' || v === null)) {
      return `[${value.map((v) => tsLiteral(v)).join(', ')}]`;
    }
    return `[\n${value.map((v) => `${inner}${tsLiteral(v, inner)},\n`).join('')}${indent}]`;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return '{}';
    const fields = entries.map(([k, v]) => `${IDENTIFIER.test(k) ? k : quote(k)}: ${tsLiteral(v, inner)}`);
    const oneLine = `{ ${fields.join(', ')} }`;
    const flat = entries.every(([, v]) => typeof v !== 'object' || v === null);
    if (flat && indent.length + oneLine.length + 2 <= WIDTH) return oneLine;
    return `{\n${fields.map((f) => `${inner}${f},\n`).join('')}${indent}}`;
  }
  throw new TypeError(`tsLiteral: cannot write a ${typeof value}`);
}
