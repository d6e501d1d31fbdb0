/**
 * A progress line with rate and ETA on stderr: redrawn in place on a terminal, printed every
 * ~10 % (and at the end) otherwise, so logs stay readable in CI. The rate leaves out what comes
 * before the first update once a later one exists: that first unit after a start or a resume
 * carries one-time costs (the Countdown-4 guessing search's first step took 15 s, later ones
 * 4 s), so one unit alone gives no ETA ('?') rather than a wrong one, and a log then also gets the
 * next line.
 */
export class Progress {
  private start = performance.now();
  private startAt = 0;
  private lastPrinted = -1;
  private etaUnknownPrinted = false;
  /** The first update since the start or resume: [time, done]. */
  private first: [number, number] | undefined;

  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {}

  /** The work resumes after `done` units (a checkpoint): rate and ETA count only what is done from now. */
  resumedAt(done: number): void {
    this.start = performance.now();
    this.startAt = done;
    this.first = undefined;
  }

  /** Units a second from the first update on; before a later one, from the start if that covers more than one unit, else 0 (unknown). */
  private rate(now: number, done: number): number {
    this.first ??= [now, done];
    const seconds = (since: number) => Math.max((now - since) / 1000, 1e-9);
    if (done > this.first[1]) return (done - this.first[1]) / seconds(this.first[0]);
    const units = done - this.startAt;
    return units >= 2 ? units / seconds(this.start) : 0;
  }

  update(done: number, note = ''): void {
    const frac = this.total > 0 ? Math.min(1, done / this.total) : 1;
    const now = performance.now();
    const elapsed = (now - this.start) / 1000;
    const rate = this.rate(now, done);
    const eta = done >= this.total ? 0 : rate > 0 ? (this.total - done) / rate : Infinity;
    const width = 24;
    const filled = Math.round(frac * width);
    const line = `${this.label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${this.total} ${formatSeconds(elapsed)} elapsed, ETA ${formatSeconds(eta)}${note ? `  ${note}` : ''}`;
    if (this.out.isTTY) {
      this.out.write(
        `\r${line.slice(0, (this.out.columns ?? 120) - 1).padEnd(Math.min(120, (this.out.columns ?? 120) - 1))}`,
      );
      if (done >= this.total) this.out.write('\n');
      return;
    }
    const decile = Math.floor(frac * 10);
    const firstKnownEta = this.etaUnknownPrinted && Number.isFinite(eta);
    if (decile > this.lastPrinted || done >= this.total || firstKnownEta) {
      this.lastPrinted = decile;
      this.etaUnknownPrinted = !Number.isFinite(eta);
      this.out.write(`${line}\n`);
    }
  }
}

export function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return '?';
  const total = Math.round(s);
  if (total < 60) return `${total}s`;
  const m = Math.floor(total / 60);
  if (m < 60) return `${m}m${String(total - 60 * m).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}
