/** Command-line option helpers shared by the tasks CLIs. */

/** The value of `--name` as a non-negative integer, `fallback` when it is absent; anything else is an error naming the option. */
export function intOption(name: string, v: string | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  if (!/^\d+$/.test(v)) throw new Error(`--${name} expects a non-negative integer, got "${v}"`);
  return Number(v);
}
