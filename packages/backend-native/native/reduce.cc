// Reductions (sum, mean, max, min, prod) over any set of axes, and a row softmax.
// Sums accumulate in double, like the tfjs cpu backend (whose JS accumulators are doubles).
// Layouts after merging neighbouring axes of the same kind:
//   [K, R]     row reduction (contiguous), parallel over rows;
//   [R, K] and [K1, R, K2]  column reduction, parallel over output columns;
//   anything else: transpose so reduced axes come last, then row reduction.
#include <cmath>
#include <vector>

#include "common.h"
#include "kernels.h"
#include "pool.h"
#include "vmath.h"

namespace tp {

const char* const kReduceOpNames[kNumReduceOps] = {"sum", "mean", "max", "min", "prod"};

namespace {

constexpr int kLanes = 8;

TP_CLONES double row_sum(const float* TP_RESTRICT x, int64_t n) {
  double acc[kLanes] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; l++) acc[l] += x[i + l];
  double s = 0;
  for (; i < n; i++) s += x[i];
  for (int l = 0; l < kLanes; l++) s += acc[l];
  return s;
}

// Mean as the cpu backend computes it: each element divided by n (float), then summed in double.
TP_CLONES double row_sum_div(const float* TP_RESTRICT x, int64_t n, float d) {
  double acc[kLanes] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; l++) acc[l] += x[i + l] / d;
  double s = 0;
  for (; i < n; i++) s += x[i] / d;
  for (int l = 0; l < kLanes; l++) s += acc[l];
  return s;
}

inline float pick_max(float m, float v) { return (v > m || v != v) ? v : m; }
inline float pick_min(float m, float v) { return (v < m || v != v) ? v : m; }

TP_CLONES float row_max(const float* TP_RESTRICT x, int64_t n) {
  float acc[kLanes];
  for (int l = 0; l < kLanes; l++) acc[l] = x[0];
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; l++) acc[l] = pick_max(acc[l], x[i + l]);
  float m = x[0];
  for (; i < n; i++) m = pick_max(m, x[i]);
  for (int l = 0; l < kLanes; l++) m = pick_max(m, acc[l]);
  return m;
}

TP_CLONES float row_min(const float* TP_RESTRICT x, int64_t n) {
  float acc[kLanes];
  for (int l = 0; l < kLanes; l++) acc[l] = x[0];
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int l = 0; l < kLanes; l++) acc[l] = pick_min(acc[l], x[i + l]);
  float m = x[0];
  for (; i < n; i++) m = pick_min(m, x[i]);
  for (int l = 0; l < kLanes; l++) m = pick_min(m, acc[l]);
  return m;
}

double row_prod(const float* x, int64_t n) {
  double p = 1;
  for (int64_t i = 0; i < n; i++) p *= x[i];
  return p;
}

float reduce_row(int op, const float* x, int64_t n) {
  switch (op) {
    case kSum: return static_cast<float>(row_sum(x, n));
    case kMean: return static_cast<float>(row_sum_div(x, n, static_cast<float>(n)));
    case kRMax: return row_max(x, n);
    case kRMin: return row_min(x, n);
    default: return static_cast<float>(row_prod(x, n));
  }
}

// out[k] = reduce over r of x[r·stride + k] for k in [k0, k1).
// div = 1 for sums, R for means (each element divided first, as the cpu backend does).
TP_CLONES void col_sum(const float* TP_RESTRICT x, int64_t R, int64_t stride, int64_t k0, int64_t k1, float* TP_RESTRICT out, double* TP_RESTRICT acc, float div) {
  const int64_t w = k1 - k0;
  for (int64_t k = 0; k < w; k++) acc[k] = 0;
  for (int64_t r = 0; r < R; r++) {
    const float* TP_RESTRICT row = x + r * stride + k0;
    if (div == 1.0f)
      for (int64_t k = 0; k < w; k++) acc[k] += row[k];
    else
      for (int64_t k = 0; k < w; k++) acc[k] += row[k] / div;
  }
  for (int64_t k = 0; k < w; k++) out[k0 + k] = static_cast<float>(acc[k]);
}

TP_CLONES void col_maxmin(bool isMax, const float* TP_RESTRICT x, int64_t R, int64_t stride, int64_t k0, int64_t k1, float* TP_RESTRICT out) {
  const int64_t w = k1 - k0;
  float* TP_RESTRICT o = out + k0;
  for (int64_t k = 0; k < w; k++) o[k] = x[k0 + k];
  for (int64_t r = 1; r < R; r++) {
    const float* TP_RESTRICT row = x + r * stride + k0;
    if (isMax)
      for (int64_t k = 0; k < w; k++) o[k] = pick_max(o[k], row[k]);
    else
      for (int64_t k = 0; k < w; k++) o[k] = pick_min(o[k], row[k]);
  }
}

void col_prod(const float* x, int64_t R, int64_t stride, int64_t k0, int64_t k1, float* out, double* acc) {
  const int64_t w = k1 - k0;
  for (int64_t k = 0; k < w; k++) acc[k] = 1;
  for (int64_t r = 0; r < R; r++)
    for (int64_t k = 0; k < w; k++) acc[k] *= x[r * stride + k0 + k];
  for (int64_t k = 0; k < w; k++) out[k0 + k] = static_cast<float>(acc[k]);
}

constexpr int64_t kColBlock = 256;

// x [K1, R, K2] → out [K1, K2].
void reduce_cols(int op, const float* x, int64_t K1, int64_t R, int64_t K2, float* out) {
  const int64_t blocks = (K2 + kColBlock - 1) / kColBlock;
  const int64_t grainUnits = R * kColBlock >= kElementGrain ? 1 : (kElementGrain + R * kColBlock - 1) / (R * kColBlock);
  pool().parallel_for(K1 * blocks, grainUnits, [&](int64_t b, int64_t e) {
    double acc[kColBlock];
    for (int64_t u = b; u < e; u++) {
      const int64_t i = u / blocks, blk = u % blocks;
      const int64_t k0 = blk * kColBlock, k1 = k0 + kColBlock < K2 ? k0 + kColBlock : K2;
      const float* xi = x + i * R * K2;
      float* oi = out + i * K2;
      if (op == kSum || op == kMean) col_sum(xi, R, K2, k0, k1, oi, acc, op == kMean ? static_cast<float>(R) : 1.0f);
      else if (op == kRMax || op == kRMin) col_maxmin(op == kRMax, xi, R, K2, k0, k1, oi);
      else col_prod(xi, R, K2, k0, k1, oi, acc);
    }
  });
}

// x [K, R] → out [K].
void reduce_rows(int op, const float* x, int64_t K, int64_t R, float* out) {
  if (K == 1 && R >= 4 * kElementGrain && (op == kSum || op == kMean)) {
    // One long row: partial sums per chunk.
    const int nt = pool().size();
    std::vector<double> part(nt, 0.0);
    pool().parallel_for(nt, 1, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; c++) {
        const int64_t lo = R * c / nt, hi = R * (c + 1) / nt;
        part[c] = op == kMean ? row_sum_div(x + lo, hi - lo, static_cast<float>(R)) : row_sum(x + lo, hi - lo);
      }
    });
    double s = 0;
    for (double p : part) s += p;
    out[0] = static_cast<float>(s);
    return;
  }
  const int64_t grain = R >= kElementGrain ? 1 : (kElementGrain + R - 1) / R;
  pool().parallel_for(K, grain, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; k++) out[k] = reduce_row(op, x + k * R, R);
  });
}

constexpr int kMaxRank = 12;

}  // namespace

void reduce(int op, const float* x, const int64_t* rawDims, const uint8_t* rawReduce, int rank, float* out) {
  // Merge neighbouring axes of the same kind; drop size-1 axes.
  int64_t dims[kMaxRank];
  bool red[kMaxRank];
  int r = 0;
  int64_t outSize = 1, total = 1;
  for (int i = 0; i < rank; i++) {
    total *= rawDims[i];
    if (!rawReduce[i]) outSize *= rawDims[i];
    if (rawDims[i] == 1) continue;
    const bool ri = rawReduce[i] != 0;
    if (r > 0 && red[r - 1] == ri) {
      dims[r - 1] *= rawDims[i];
      continue;
    }
    dims[r] = rawDims[i];
    red[r] = ri;
    r++;
  }
  if (outSize == 0) return;
  if (total == 0) {  // empty reduction
    const float v = op == kSum ? 0.0f : op == kProd ? 1.0f : op == kMean ? NAN : (op == kRMax ? -INFINITY : INFINITY);
    for (int64_t i = 0; i < outSize; i++) out[i] = v;
    return;
  }
  if (r == 0 || (r == 1 && !red[0])) {  // nothing reduced: copy (mean of one element is itself)
    for (int64_t i = 0; i < outSize; i++) out[i] = x[i];
    return;
  }
  if (r == 1) return reduce_rows(op, x, 1, dims[0], out);
  if (r == 2 && !red[0]) return reduce_rows(op, x, dims[0], dims[1], out);
  if (r == 2 && red[0]) return reduce_cols(op, x, 1, dims[0], dims[1], out);
  if (r == 3 && !red[0] && red[1]) return reduce_cols(op, x, dims[0], dims[1], dims[2], out);
  // General: move reduced axes last, then reduce rows.
  int64_t perm[kMaxRank];
  int p = 0;
  int64_t R = 1;
  for (int i = 0; i < r; i++)
    if (!red[i]) perm[p++] = i;
  for (int i = 0; i < r; i++)
    if (red[i]) {
      perm[p++] = i;
      R *= dims[i];
    }
  int permI[kMaxRank];
  for (int i = 0; i < r; i++) permI[i] = static_cast<int>(perm[i]);
  std::vector<float> tmp(static_cast<size_t>(total));
  transpose(x, dims, permI, r, tmp.data(), 4);
  reduce_rows(op, tmp.data(), total / R, R, out);
}

namespace {

TP_CLONES void exp_shifted(const float* TP_RESTRICT x, float* TP_RESTRICT o, int64_t n, float m) {
  for (int64_t i = 0; i < n; i++) o[i] = exp_f(x[i] - m);
}

TP_CLONES void divide_by(float* TP_RESTRICT o, int64_t n, float s) {
  for (int64_t i = 0; i < n; i++) o[i] = o[i] / s;
}

// Like the cpu kernel: max, exp(x − max), sum (double), divide.
void softmax_row(const float* x, float* o, int64_t n) {
  const float m = row_max(x, n);
  exp_shifted(x, o, n, m);
  divide_by(o, n, static_cast<float>(row_sum(o, n)));
}

}  // namespace

void softmax(const float* x, float* out, int64_t rows, int64_t cols) {
  if (cols == 0) return;
  const int64_t grain = cols >= kElementGrain / 4 ? 1 : (kElementGrain / 4 + cols - 1) / cols;
  pool().parallel_for(rows, grain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; i++) softmax_row(x + i * cols, out + i * cols, cols);
  });
}

}  // namespace tp
