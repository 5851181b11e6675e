/**
 * Kubernetes resource quantities ("500m", "2", "64Mi", "1e3"), parsed exactly enough to compare and to
 * add up: values are kept in milli-units as bigint, so sums of node capacities never lose precision.
 */

const BINARY: Record<string, bigint> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const PATTERN = /^([+-]?[0-9]+(?:\.[0-9]*)?|[+-]?\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$/;

export interface Quantity {
  /** The value times 1000, rounded up as Kubernetes rounds sub-milli values. */
  readonly milli: bigint;
  readonly binary: boolean;
}

function decimalToMilli(digits: string, exponent: number): bigint {
  const negative = digits.startsWith('-');
  const [whole, fraction = ''] = digits.replace(/^[+-]/, '').split('.');
  let mantissa = BigInt(`${whole || '0'}${fraction}`);
  let shift = exponent + 3 - fraction.length;
  if (shift >= 0) mantissa *= 10n ** BigInt(shift);
  else {
    const divisor = 10n ** BigInt(-shift);
    mantissa = (mantissa + divisor - 1n) / divisor;
    shift = 0;
  }
  return negative ? -mantissa : mantissa;
}

/** Parses a quantity, or returns undefined for a string that is not one. */
export function parseQuantity(value: string | number): Quantity | undefined {
  if (typeof value === 'number') {
    return Number.isFinite(value) ? { milli: BigInt(Math.round(value * 1000)), binary: false } : undefined;
  }
  const match = PATTERN.exec(value.trim());
  if (!match) return undefined;
  const [, number, suffix = ''] = match;
  if (suffix in BINARY) {
    return { milli: decimalToMilli(number, 0) * BINARY[suffix], binary: true };
  }
  const exponent = suffix in DECIMAL ? DECIMAL[suffix] : Number(suffix.slice(1));
  return { milli: decimalToMilli(number, exponent), binary: false };
}

/** The canonical text of a quantity: binary suffixes when the inputs used them, else plain or milli. */
export function formatQuantity(q: Quantity): string {
  if (q.milli % 1000n !== 0n) return `${q.milli}m`;
  const units = q.milli / 1000n;
  if (q.binary && units !== 0n) {
    for (const suffix of ['Ei', 'Pi', 'Ti', 'Gi', 'Mi', 'Ki']) {
      if (units % BINARY[suffix] === 0n) return `${units / BINARY[suffix]}${suffix}`;
    }
  }
  return `${units}`;
}

/** Sums maps of quantities (e.g. the allocatable resources of several nodes) key by key. */
export function sumQuantities(maps: Record<string, string>[]): Record<string, string> {
  const totals = new Map<string, Quantity>();
  for (const map of maps) {
    for (const [key, text] of Object.entries(map)) {
      const q = parseQuantity(text);
      if (!q) continue;
      const prev = totals.get(key);
      totals.set(key, prev ? { milli: prev.milli + q.milli, binary: prev.binary || q.binary } : q);
    }
  }
  return Object.fromEntries(
    [...totals].sort(([a], [b]) => a.localeCompare(b)).map(([k, q]) => [k, formatQuantity(q)]),
  );
}
