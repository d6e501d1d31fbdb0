// Fused kernels for core's fused ops: LayerNorm forward/backward and the AdamW update.
// Each replaces a chain of 10–25 elementwise kernels (and their full-size intermediates).
#include <cmath>
#include <vector>

#include "common.h"
#include "kernels.h"
#include "pool.h"
#include "vmath.h"

// No FMA contraction in this file: the fused kernels round every step like the op-by-op
// sequences they replace (AdamW comes out bit-identical; LayerNorm's exact zeros stay zero).
#pragma GCC optimize("fp-contract=off")

namespace tp {

namespace {

// Rows per parallel chunk so that a chunk is at least ~kElementGrain elements.
int64_t row_grain(int64_t C) { return C >= kElementGrain ? 1 : (kElementGrain + C - 1) / C; }

// Rounds like core's op-by-op LayerNorm on the cpu backend: Mean divides each element by C
// (float) and sums in double; the variance is the mean of float squares; rsqrt in double.
TP_CLONES void ln_row(const float* TP_RESTRICT x, const float* TP_RESTRICT g, const float* TP_RESTRICT b, float* TP_RESTRICT y, int64_t C, float eps, float* mean, float* rstd) {
  const float cf = static_cast<float>(C);
  double s = 0;
  for (int64_t i = 0; i < C; i++) s += x[i] / cf;
  const float m = static_cast<float>(s);
  double q = 0;
  for (int64_t i = 0; i < C; i++) {
    const float d = x[i] - m;
    q += (d * d) / cf;
  }
  const float var = static_cast<float>(q);
  const float r = static_cast<float>(1.0 / std::sqrt(static_cast<double>(var + eps)));
  for (int64_t i = 0; i < C; i++) y[i] = (x[i] - m) * r * g[i] + b[i];
  *mean = m;
  *rstd = r;
}

// dx for one row; accumulates dy·xhat and dy into the chunk's partial sums.
TP_CLONES void ln_grad_row(const float* TP_RESTRICT dy, const float* TP_RESTRICT x, const float* TP_RESTRICT g, float m, float r, float* TP_RESTRICT dx, double* TP_RESTRICT dgamma, double* TP_RESTRICT dbeta, int64_t C) {
  double sg = 0, sgx = 0;
  for (int64_t i = 0; i < C; i++) {
    const float xh = (x[i] - m) * r;
    const float gi = dy[i] * g[i];
    sg += gi;
    sgx += static_cast<double>(gi) * xh;
    dgamma[i] += static_cast<double>(dy[i]) * xh;
    dbeta[i] += dy[i];
  }
  const float mg = static_cast<float>(sg / static_cast<double>(C));
  const float mgx = static_cast<float>(sgx / static_cast<double>(C));
  for (int64_t i = 0; i < C; i++) {
    const float xh = (x[i] - m) * r;
    dx[i] = r * (dy[i] * g[i] - mg - xh * mgx);
  }
}

TP_CLONES void adamw_seg(const float* TP_RESTRICT p, const float* TP_RESTRICT m, const float* TP_RESTRICT v, const float* TP_RESTRICT g, float* TP_RESTRICT po, float* TP_RESTRICT mo, float* TP_RESTRICT vo,
                         int64_t n, float lr, float b1, float b2, float ob1, float ob2, float eps, float wd, float c1, float c2) {
  for (int64_t i = 0; i < n; i++) {
    const float gi = g[i];
    const float m1 = m[i] * b1 + gi * ob1;
    const float v1 = v[i] * b2 + gi * gi * ob2;
    const float upd = (m1 / c1) / (std::sqrt(v1 / c2) + eps) + p[i] * wd;
    mo[i] = m1;
    vo[i] = v1;
    po[i] = p[i] - upd * lr;
  }
}

constexpr int kMaxRank = 12;

// y = softmax(scale·x + bias) over one row of n; bias may be one value broadcast along the row.
TP_CLONES void sms_row(const float* TP_RESTRICT x, const float* TP_RESTRICT bias, bool biasScalar, float scale, float* TP_RESTRICT y, int64_t n) {
  if (biasScalar)
    for (int64_t i = 0; i < n; i++) y[i] = x[i] * scale + bias[0];
  else
    for (int64_t i = 0; i < n; i++) y[i] = x[i] * scale + bias[i];
  float m = y[0];
  for (int64_t i = 1; i < n; i++) m = (y[i] > m || y[i] != y[i]) ? y[i] : m;
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i < n; i++) y[i] = exp_f(y[i] - m);
  for (i = 0; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; l++) acc[l] += y[i + l];
  double sum = 0;
  for (; i < n; i++) sum += y[i];
  for (int l = 0; l < 8; l++) sum += acc[l];
  const float sf = static_cast<float>(sum);
  for (int64_t j = 0; j < n; j++) y[j] = y[j] / sf;
}

// dx = (dy·y − (Σ dy·y)·y)·scale over one row (the softmax gradient, then the scale's).
TP_CLONES void sms_grad_row(const float* TP_RESTRICT dy, const float* TP_RESTRICT y, float scale, float* TP_RESTRICT dx, int64_t n) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; l++) acc[l] += dy[i + l] * y[i + l];
  double sum = 0;
  for (; i < n; i++) sum += dy[i] * y[i];
  for (int l = 0; l < 8; l++) sum += acc[l];
  const float s = static_cast<float>(sum);
  for (int64_t j = 0; j < n; j++) dx[j] = (dy[j] * y[j] - s * y[j]) * scale;
}

}  // namespace

void scaled_masked_softmax(const float* x, const int64_t* xDims, const float* bias, const int64_t* biasDims, int rank, float scale, float* y) {
  const int64_t n = xDims[rank - 1];
  const bool biasScalar = biasDims[rank - 1] == 1;
  int64_t rows = 1, bStride[kMaxRank];
  int64_t st = biasDims[rank - 1];
  for (int d = rank - 2; d >= 0; d--) {
    bStride[d] = biasDims[d] == 1 ? 0 : st;
    st *= biasDims[d];
  }
  for (int d = 0; d < rank - 1; d++) rows *= xDims[d];
  if (n == 0 || rows == 0) return;
  const int64_t grain = n >= kElementGrain / 4 ? 1 : (kElementGrain / 4 + n - 1) / n;
  pool().parallel_for(rows, grain, [&](int64_t b, int64_t e) {
    int64_t idx[kMaxRank], off = 0, rem = b;
    for (int d = rank - 2; d >= 0; d--) {
      idx[d] = rem % xDims[d];
      rem /= xDims[d];
      off += idx[d] * bStride[d];
    }
    for (int64_t r = b; r < e; r++) {
      sms_row(x + r * n, bias + off, biasScalar, scale, y + r * n, n);
      for (int d = rank - 2; d >= 0; d--) {
        idx[d]++;
        off += bStride[d];
        if (idx[d] < xDims[d]) break;
        off -= bStride[d] * xDims[d];
        idx[d] = 0;
      }
    }
  });
}

void softmax_grad(const float* dy, const float* y, float scale, float* dx, int64_t rows, int64_t n) {
  if (n == 0) return;
  const int64_t grain = n >= kElementGrain / 4 ? 1 : (kElementGrain / 4 + n - 1) / n;
  pool().parallel_for(rows, grain, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; r++) sms_grad_row(dy + r * n, y + r * n, scale, dx + r * n, n);
  });
}

void layer_norm(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd, int64_t N, int64_t C, float eps) {
  pool().parallel_for(N, row_grain(C), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; r++) ln_row(x + r * C, gamma, beta, y + r * C, C, eps, mean + r, rstd + r);
  });
}

void layer_norm_grad(const float* dy, const float* x, const float* gamma, const float* mean, const float* rstd, float* dx, float* dgamma, float* dbeta, int64_t N, int64_t C) {
  // Rows are split into fixed units; each unit sums its own dgamma/dbeta partials (no races),
  // reduced serially at the end.
  const int64_t units = N < 4 * pool().size() ? (N > 0 ? N : 1) : 4 * pool().size();
  std::vector<double> part(static_cast<size_t>(units * 2 * C), 0.0);
  const int64_t grainUnits = (N * C) / units >= kElementGrain ? 1 : units;
  pool().parallel_for(units, grainUnits, [&](int64_t u0, int64_t u1) {
    for (int64_t u = u0; u < u1; u++) {
      double* dg = part.data() + u * 2 * C;
      double* db = dg + C;
      for (int64_t r = N * u / units; r < N * (u + 1) / units; r++) ln_grad_row(dy + r * C, x + r * C, gamma, mean[r], rstd[r], dx + r * C, dg, db, C);
    }
  });
  for (int64_t i = 0; i < C; i++) {
    double sg = 0, sb = 0;
    for (int64_t u = 0; u < units; u++) {
      sg += part[u * 2 * C + i];
      sb += part[u * 2 * C + C + i];
    }
    dgamma[i] = static_cast<float>(sg);
    dbeta[i] = static_cast<float>(sb);
  }
}

void adamw(const float* p, const float* m, const float* v, const float* g, float* pOut, float* mOut, float* vOut, int64_t n, float lr, double b1, double b2, float eps, float wd, float c1, float c2) {
  // 1 − β in double, then rounded (as a JS scalar becomes a float32 tensor).
  const float ob1 = static_cast<float>(1.0 - b1), ob2 = static_cast<float>(1.0 - b2);
  pool().parallel_for(n, kElementGrain, [&](int64_t b, int64_t e) {
    adamw_seg(p + b, m + b, v + b, g + b, pOut + b, mOut + b, vOut + b, e - b, lr, static_cast<float>(b1), static_cast<float>(b2), ob1, ob2, eps, wd, c1, c2);
  });
}

}  // namespace tp
