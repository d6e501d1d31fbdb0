/**
 * Numeric answer normalisation (docs/datasets.md §10): strip thousands commas, a leading "+", a "$"
 * and whitespace; write "-0" as "0"; drop trailing fractional zeros ("72.0" → "72", "0.50" →
 * "0.5") and leading integer zeros. Two answers match when their canonical forms are equal.
 */

const NUMBER = /^-?(?:\d+(?:\.\d*)?|\.\d+)$/;
/** The first number in a text: optional minus, digits with optional thousands commas, optional decimals. */
const FIRST_NUMBER = /-?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?/g;

/** Canonical decimal string of a numeric answer, or null when the text is not a number. */
export function canonicalNumber(text: string): string | null {
  let s = text
    .trim()
    .replace(/\u2212/g, '-')
    .replace(/^\$/, '')
    .replace(/^\+/, '');
  if (s.startsWith('-$')) s = '-' + s.slice(2);
  if (/,/.test(s)) {
    // Commas are accepted only as thousands separators.
    if (!/^-?\d{1,3}(?:,\d{3})+(?:\.\d*)?$/.test(s)) return null;
    s = s.replace(/,/g, '');
  }
  s = s.replace(/\.$/, '');
  const exp = expandExponent(s);
  if (exp !== null) s = exp;
  if (!NUMBER.test(s)) return null;
  const neg = s.startsWith('-');
  if (neg) s = s.slice(1);
  let [int, frac = ''] = s.split('.');
  int = int.replace(/^0+/, '') || '0';
  frac = frac.replace(/0+$/, '');
  const body = frac ? `${int}.${frac}` : int;
  return neg && body !== '0' ? `-${body}` : body;
}

/** "5.158e-7" → "0.0000005158", "1e+21" → "1000000000000000000000"; null when there is no exponent. */
function expandExponent(s: string): string | null {
  const m = /^(-?)(\d+)(?:\.(\d*))?[eE]([+-]?\d+)$/.exec(s);
  if (!m) return null;
  const [, sign, int, frac = '', e] = m;
  const digits = int + frac;
  const point = int.length + Number(e);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** The first number-looking substring of a text (e.g. "The answer is 1,000 apples." → "1,000"). */
export function firstNumber(text: string): string | null {
  for (const m of text.matchAll(FIRST_NUMBER)) {
    if (m[0] !== '' && m[0] !== '-' && /\d/.test(m[0])) return m[0];
  }
  return null;
}

/** Exact match after normalisation. */
export function numbersEqual(a: string, b: string): boolean {
  const x = canonicalNumber(a);
  return x !== null && x === canonicalNumber(b);
}

/**
 * Numeric match with a relative tolerance: |pred − gold| ≤ tol·max(1, |gold|)
 * (docs/datasets.md §6, [inferred] there; used for GSM-Hard, whose targets are floats).
 */
export function numbersClose(pred: string, gold: string, tol = 1e-4): boolean {
  const p = canonicalNumber(pred);
  const g = canonicalNumber(gold);
  if (p === null || g === null) return false;
  return Math.abs(Number(p) - Number(g)) <= tol * Math.max(1, Math.abs(Number(g)));
}
