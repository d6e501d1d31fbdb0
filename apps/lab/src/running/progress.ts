/**
 * A progress line with rate and ETA on stderr: redrawn in place on a terminal, printed every
 * ~10 % (and at the end) otherwise, so logs stay readable in CI.
 */
export class Progress {
  private start = performance.now();
  private startAt = 0;
  private lastPrinted = -1;

  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {}

  /** The work resumes after `done` units (a checkpoint): rate and ETA count only what is done from now. */
  resumedAt(done: number): void {
    this.start = performance.now();
    this.startAt = done;
  }

  update(done: number, note = ''): void {
    const frac = this.total > 0 ? Math.min(1, done / this.total) : 1;
    const elapsed = (performance.now() - this.start) / 1000;
    const rate = (done - this.startAt) / Math.max(elapsed, 1e-9);
    const eta = rate > 0 ? (this.total - done) / rate : Infinity;
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
    if (decile > this.lastPrinted || done >= this.total) {
      this.lastPrinted = decile;
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
