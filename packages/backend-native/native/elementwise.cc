// Elementwise kernels: broadcasting binary ops, unary ops, AddN and the tanh-GELU gradient.
// Binary broadcasting: dims of size 1 are dropped, adjacent dims that are contiguous in both
// inputs are merged, and the innermost run is processed by a vector/vector, vector/scalar or
// scalar/vector loop. Work is split over the flat output index across the pool.
#include <cmath>

#include "common.h"
#include "kernels.h"
#include "pool.h"
#include "vmath.h"

namespace tp {

const char* const kBinaryOpNames[kNumBinaryOps] = {"add", "sub", "mul", "div", "max", "min", "sqdiff", "pow"};

namespace {

inline float op_max(float a, float b) { return (a > b || a != a) ? a : b; }
inline float op_min(float a, float b) { return (a < b || a != a) ? a : b; }
inline float op_sqdiff(float a, float b) {
  float d = a - b;
  return d * d;
}

using SegFn = void (*)(const float*, const float*, float*, int64_t);

// Three loops per op: both vectors, b broadcast (scalar), a broadcast (scalar).
#define TP_BINARY(name, expr)                                                                         \
  TP_CLONES void name##_vv(const float* TP_RESTRICT pa, const float* TP_RESTRICT pb, float* TP_RESTRICT o, int64_t n) { \
    for (int64_t i = 0; i < n; i++) {                                                                  \
      const float a = pa[i], b = pb[i];                                                               \
      o[i] = (expr);                                                                                  \
    }                                                                                                 \
  }                                                                                                   \
  TP_CLONES void name##_vs(const float* TP_RESTRICT pa, const float* TP_RESTRICT pb, float* TP_RESTRICT o, int64_t n) { \
    const float b = *pb;                                                                              \
    for (int64_t i = 0; i < n; i++) {                                                                  \
      const float a = pa[i];                                                                          \
      o[i] = (expr);                                                                                  \
    }                                                                                                 \
  }                                                                                                   \
  TP_CLONES void name##_sv(const float* TP_RESTRICT pa, const float* TP_RESTRICT pb, float* TP_RESTRICT o, int64_t n) { \
    const float a = *pa;                                                                              \
    for (int64_t i = 0; i < n; i++) {                                                                  \
      const float b = pb[i];                                                                          \
      o[i] = (expr);                                                                                  \
    }                                                                                                 \
  }

TP_BINARY(add, a + b)
TP_BINARY(sub, a - b)
TP_BINARY(mul, a* b)
TP_BINARY(div, a / b)
TP_BINARY(max, op_max(a, b))
TP_BINARY(min, op_min(a, b))
TP_BINARY(sqdiff, op_sqdiff(a, b))
TP_BINARY(pow, std::pow(a, b))
#undef TP_BINARY

// [op][0: vv, 1: vs, 2: sv]
const SegFn kSeg[kNumBinaryOps][3] = {
    {add_vv, add_vs, add_sv}, {sub_vv, sub_vs, sub_sv}, {mul_vv, mul_vs, mul_sv}, {div_vv, div_vs, div_sv},
    {max_vv, max_vs, max_sv}, {min_vv, min_vs, min_sv}, {sqdiff_vv, sqdiff_vs, sqdiff_sv}, {pow_vv, pow_vs, pow_sv},
};

constexpr int kMaxRank = 12;

}  // namespace

namespace {

// Applies seg(a_run, b_run, out_run, len) over the broadcast iteration space.
template <class OutT, class Seg>
void broadcast_apply(Seg seg, const float* a, const int64_t* aDims, const float* b, const int64_t* bDims, OutT* out, const int64_t* outDims, int rank) {
  // Strides of each input over the output dims (0 where broadcast).
  int64_t dims[kMaxRank], sa[kMaxRank], sb[kMaxRank];
  int64_t strideA = 1, strideB = 1, total = 1;
  int64_t rawDims[kMaxRank], rawSa[kMaxRank], rawSb[kMaxRank];
  for (int i = rank - 1; i >= 0; i--) {
    rawDims[i] = outDims[i];
    rawSa[i] = aDims[i] == 1 ? 0 : strideA;
    rawSb[i] = bDims[i] == 1 ? 0 : strideB;
    strideA *= aDims[i];
    strideB *= bDims[i];
    total *= outDims[i];
  }
  if (total == 0) return;
  // Drop size-1 dims, merge contiguous neighbours.
  int r = 0;
  for (int i = 0; i < rank; i++) {
    if (rawDims[i] == 1) continue;
    if (r > 0 && sa[r - 1] == rawSa[i] * rawDims[i] && sb[r - 1] == rawSb[i] * rawDims[i]) {
      dims[r - 1] *= rawDims[i];
      sa[r - 1] = rawSa[i];
      sb[r - 1] = rawSb[i];
      continue;
    }
    dims[r] = rawDims[i];
    sa[r] = rawSa[i];
    sb[r] = rawSb[i];
    r++;
  }
  if (r == 0) {  // all dims 1: one element
    dims[0] = 1;
    sa[0] = 1;
    sb[0] = 1;
    r = 1;
  }
  const int64_t n = dims[r - 1];
  const int kind = (sa[r - 1] != 0 && sb[r - 1] != 0) ? 0 : (sb[r - 1] == 0 ? 1 : 2);
  pool().parallel_for(total, kElementGrain, [&](int64_t begin, int64_t end) {
    // Multi-index of the row holding `begin`.
    int64_t row = begin / n, col = begin % n;
    int64_t idx[kMaxRank];
    int64_t offA = 0, offB = 0, rem = row;
    for (int d = r - 2; d >= 0; d--) {
      idx[d] = rem % dims[d];
      rem /= dims[d];
      offA += idx[d] * sa[d];
      offB += idx[d] * sb[d];
    }
    int64_t e = begin;
    while (e < end) {
      int64_t len = n - col;
      if (len > end - e) len = end - e;
      seg(kind, a + offA + col * sa[r - 1], b + offB + col * sb[r - 1], out + e, len);
      e += len;
      col = 0;
      // Advance the odometer over the outer dims.
      for (int d = r - 2; d >= 0; d--) {
        idx[d]++;
        offA += sa[d];
        offB += sb[d];
        if (idx[d] < dims[d]) break;
        offA -= sa[d] * dims[d];
        offB -= sb[d] * dims[d];
        idx[d] = 0;
      }
    }
  });
}

using CmpFn = void (*)(const float*, const float*, uint8_t*, int64_t);

#define TP_COMPARE(name, expr)                                                                          \
  TP_CLONES void name##_vv(const float* TP_RESTRICT pa, const float* TP_RESTRICT pb, uint8_t* TP_RESTRICT o, int64_t n) { \
    for (int64_t i = 0; i < n; i++) {                                                                    \
      const float a = pa[i], b = pb[i];                                                                 \
      o[i] = (expr) ? 1 : 0;                                                                            \
    }                                                                                                   \
  }                                                                                                     \
  TP_CLONES void name##_vs(const float* TP_RESTRICT pa, const float* TP_RESTRICT pb, uint8_t* TP_RESTRICT o, int64_t n) { \
    const float b = *pb;                                                                                \
    for (int64_t i = 0; i < n; i++) {                                                                    \
      const float a = pa[i];                                                                            \
      o[i] = (expr) ? 1 : 0;                                                                            \
    }                                                                                                   \
  }                                                                                                     \
  TP_CLONES void name##_sv(const float* TP_RESTRICT pa, const float* TP_RESTRICT pb, uint8_t* TP_RESTRICT o, int64_t n) { \
    const float a = *pa;                                                                                \
    for (int64_t i = 0; i < n; i++) {                                                                    \
      const float b = pb[i];                                                                            \
      o[i] = (expr) ? 1 : 0;                                                                            \
    }                                                                                                   \
  }

TP_COMPARE(eq, a == b)
TP_COMPARE(ne, a != b)
TP_COMPARE(gt, a > b)
TP_COMPARE(ge, a >= b)
TP_COMPARE(lt, a < b)
TP_COMPARE(le, a <= b)
#undef TP_COMPARE

const CmpFn kCmp[kNumCompareOps][3] = {
    {eq_vv, eq_vs, eq_sv}, {ne_vv, ne_vs, ne_sv}, {gt_vv, gt_vs, gt_sv}, {ge_vv, ge_vs, ge_sv}, {lt_vv, lt_vs, lt_sv}, {le_vv, le_vs, le_sv},
};

}  // namespace

void binary(int op, const float* a, const int64_t* aDims, const float* b, const int64_t* bDims, float* out, const int64_t* outDims, int rank) {
  const SegFn* fns = kSeg[op];
  broadcast_apply<float>([fns](int kind, const float* x, const float* y, float* o, int64_t n) { fns[kind](x, y, o, n); }, a, aDims, b, bDims, out, outDims, rank);
}

const char* const kCompareOpNames[kNumCompareOps] = {"eq", "ne", "gt", "ge", "lt", "le"};

void compare(int op, const float* a, const int64_t* aDims, const float* b, const int64_t* bDims, uint8_t* out, const int64_t* outDims, int rank) {
  const CmpFn* fns = kCmp[op];
  broadcast_apply<uint8_t>([fns](int kind, const float* x, const float* y, uint8_t* o, int64_t n) { fns[kind](x, y, o, n); }, a, aDims, b, bDims, out, outDims, rank);
}

const char* const kUnaryOpNames[kNumUnaryOps] = {"neg",   "exp",   "log",       "tanh", "sqrt", "rsqrt",
                                                 "square", "reciprocal", "relu", "sigmoid", "abs", "erf",
                                                 "relu6", "elu",   "leakyRelu", "step", "clip", "geluTanh"};

namespace {

// Abramowitz–Stegun 7.1.26, the formula the tfjs cpu backend uses, evaluated in double like it
// (in float, 1 − poly·e^{−x²} cancels for small x).
inline float erf_as(float xf) {
  const double p = 0.3275911, a1 = 0.254829592, a2 = -0.284496736, a3 = 1.421413741, a4 = -1.453152027, a5 = 1.061405429;
  const double x = xf;
  const double v = x < 0 ? -x : x;
  const double t = 1.0 / (1.0 + p * v);
  double y = 1.0 - (((((a5 * t + a4) * t) + a3) * t + a2) * t + a1) * t * std::exp(-v * v);
  y = x < 0 ? -y : y;
  return x == 0 ? xf : static_cast<float>(y);
}

constexpr float kGeluK = 0.7978845608028654f;  // sqrt(2/pi)
constexpr float kGeluC = 0.044715f;

// 0.5·x·(1 + tanh z) with z = k(x + c x³), written as x / (1 + e^{−2z}): no cancellation in the
// negative tail, where 1 + tanh z is tiny.
inline float gelu_tanh(float x) {
  const float z = kGeluK * (x + kGeluC * x * x * x);
  return x / (1.0f + exp_f(-2.0f * z));
}

using UnaryFn = void (*)(const float*, float*, int64_t, float, float);

#define TP_UNARY(name, expr)                                                                              \
  TP_CLONES void u_##name(const float* TP_RESTRICT px, float* TP_RESTRICT o, int64_t n, float alpha, float beta) { \
    (void)alpha;                                                                                          \
    (void)beta;                                                                                           \
    for (int64_t i = 0; i < n; i++) {                                                                      \
      const float x = px[i];                                                                              \
      o[i] = (expr);                                                                                      \
    }                                                                                                     \
  }

TP_UNARY(neg, -x)
TP_UNARY(exp, exp_f(x))
TP_UNARY(log, std::log(x))
TP_UNARY(tanh, tanh_f(x))
TP_UNARY(sqrt, std::sqrt(x))
TP_UNARY(rsqrt, 1.0f / std::sqrt(x))
TP_UNARY(square, x* x)
TP_UNARY(reciprocal, 1.0f / x)
TP_UNARY(relu, x < 0 ? 0.0f : x)
TP_UNARY(sigmoid, 1.0f / (1.0f + exp_f(-x)))
TP_UNARY(abs, x < 0 ? -x : (x == 0 ? 0.0f : x))
TP_UNARY(erf, erf_as(x))
TP_UNARY(relu6, x < 0 ? 0.0f : (x > 6.0f ? 6.0f : x))
TP_UNARY(elu, x >= 0 ? x : exp_f(x) - 1.0f)
TP_UNARY(leaky_relu, x < 0 ? alpha * x : x)
TP_UNARY(step, x != x ? x : (x > 0 ? 1.0f : alpha))
TP_UNARY(clip, x > beta ? beta : (x < alpha ? alpha : x))
TP_UNARY(gelu_tanh, gelu_tanh(x))
#undef TP_UNARY

const UnaryFn kUnary[kNumUnaryOps] = {u_neg,     u_exp,     u_log,  u_tanh, u_sqrt, u_rsqrt,      u_square, u_reciprocal, u_relu,
                                      u_sigmoid, u_abs,     u_erf,  u_relu6, u_elu, u_leaky_relu, u_step,   u_clip,       u_gelu_tanh};

}  // namespace

void unary(int op, const float* x, float* out, int64_t n, float alpha, float beta) {
  const UnaryFn fn = kUnary[op];
  // Transcendental ops are compute-bound: split them earlier.
  const int64_t grain = (op == kNeg || op == kSquare || op == kRelu || op == kAbs) ? kElementGrain : kElementGrain / 4;
  pool().parallel_for(n, grain, [&](int64_t b, int64_t e) { fn(x + b, out + b, e - b, alpha, beta); });
}

namespace {

TP_CLONES void add_n_seg(const float* const* xs, int k, float* TP_RESTRICT out, int64_t b, int64_t e) {
  const float* TP_RESTRICT x0 = xs[0];
  for (int64_t i = b; i < e; i++) out[i] = x0[i];
  for (int j = 1; j < k; j++) {
    const float* TP_RESTRICT xj = xs[j];
    for (int64_t i = b; i < e; i++) out[i] += xj[i];
  }
}

// d/dx [x·s] with s = σ(2z): s + 2·x·s·(1 − s)·k·(1 + 3c x²); 1 − s taken as e·s when e = e^{−2z} < 1.
TP_CLONES void gelu_grad_seg(const float* TP_RESTRICT x, const float* TP_RESTRICT dy, float* TP_RESTRICT dx, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    const float v = x[i];
    const float z = kGeluK * (v + kGeluC * v * v * v);
    const float e = exp_f(-2.0f * z);
    const float s = 1.0f / (1.0f + e);
    const float oms = e < 1.0f ? e * s : 1.0f - s;
    const float dz = kGeluK * (1.0f + 3.0f * kGeluC * v * v);
    dx[i] = dy[i] * (s + 2.0f * v * s * oms * dz);
  }
}

}  // namespace

void add_n(const float* const* xs, int k, float* out, int64_t n) {
  pool().parallel_for(n, kElementGrain, [&](int64_t b, int64_t e) { add_n_seg(xs, k, out, b, e); });
}

void gelu_tanh_grad(const float* x, const float* dy, float* dx, int64_t n) {
  pool().parallel_for(n, kElementGrain / 4, [&](int64_t b, int64_t e) { gelu_grad_seg(x + b, dy + b, dx + b, e - b); });
}

}  // namespace tp
