/**
 * Minimum-cost assignment (Hungarian / Kuhn–Munkres method with row and column potentials,
 * O(n²m)), used by the MCC of docs/method-reference.md §1.12 ("π* = argmax_π Σ_i ρ_{i,π(i)} (Hungarian on −ρ)").
 * Written here from the textbook description of the algorithm.
 */

export interface Assignment {
  /** assignment[i] = column given to row i, or −1 when there are more rows than columns. */
  assignment: number[];
  total: number;
}

/** Assigns rows to distinct columns minimising the summed cost; cost is [n][m], any n, m. */
export function hungarian(cost: number[][]): Assignment {
  const n = cost.length;
  if (n === 0) return { assignment: [], total: 0 };
  const m = cost[0].length;
  for (const row of cost) {
    if (row.length !== m) throw new Error(`hungarian: ragged cost matrix (rows of ${m} and ${row.length})`);
    for (const x of row) if (!Number.isFinite(x)) throw new Error(`hungarian: non-finite cost ${x}`);
  }
  if (m === 0) return { assignment: new Array<number>(n).fill(-1), total: 0 };
  if (n > m) {
    const t = transposeOf(cost);
    const cols = hungarian(t).assignment; // column c → row
    const assignment = new Array<number>(n).fill(-1);
    cols.forEach((r, c) => (assignment[r] = c));
    return { assignment, total: sumOf(cost, assignment) };
  }
  // 1-based: u row potentials, v column potentials, match[j] = row matched to column j (0 = none).
  const u = new Float64Array(n + 1);
  const v = new Float64Array(m + 1);
  const match = new Int32Array(m + 1);
  const prev = new Int32Array(m + 1);
  for (let i = 1; i <= n; i++) {
    match[0] = i;
    let j0 = 0;
    const minSlack = new Float64Array(m + 1).fill(Infinity);
    const visited = new Uint8Array(m + 1);
    // Grow an alternating tree from row i until it reaches a free column.
    do {
      visited[j0] = 1;
      const i0 = match[j0];
      let delta = Infinity;
      let j1 = 0;
      for (let j = 1; j <= m; j++) {
        if (visited[j]) continue;
        const slack = cost[i0 - 1][j - 1] - u[i0] - v[j];
        if (slack < minSlack[j]) {
          minSlack[j] = slack;
          prev[j] = j0;
        }
        if (minSlack[j] < delta) {
          delta = minSlack[j];
          j1 = j;
        }
      }
      for (let j = 0; j <= m; j++) {
        if (visited[j]) {
          u[match[j]] += delta;
          v[j] -= delta;
        } else {
          minSlack[j] -= delta;
        }
      }
      j0 = j1;
    } while (match[j0] !== 0);
    // Flip the augmenting path.
    do {
      const j1 = prev[j0];
      match[j0] = match[j1];
      j0 = j1;
    } while (j0 !== 0);
  }
  const assignment = new Array<number>(n).fill(-1);
  for (let j = 1; j <= m; j++) if (match[j] > 0) assignment[match[j] - 1] = j - 1;
  return { assignment, total: sumOf(cost, assignment) };
}

/** Row-to-column assignment maximising the summed score. */
export function maxAssignment(score: number[][]): Assignment {
  const { assignment } = hungarian(score.map((row) => row.map((x) => -x)));
  return { assignment, total: sumOf(score, assignment) };
}

function transposeOf(a: number[][]): number[][] {
  return a[0].map((_, j) => a.map((row) => row[j]));
}

function sumOf(cost: number[][], assignment: number[]): number {
  return assignment.reduce((acc, j, i) => (j >= 0 ? acc + cost[i][j] : acc), 0);
}
