/** `k` of `n` as a percentage with one decimal ("35.9 %"), or '–' when there is nothing to count. */
export const pct = (k: number, n: number): string => (n ? `${((100 * k) / n).toFixed(1)} %` : '–');
