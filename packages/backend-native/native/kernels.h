// Kernel entry points (float32, row-major, contiguous). Every kernel writes every element of
// its output, so outputs may come from a pool of reused (dirty) buffers. Shapes in comments.
#pragma once
#include <cstdint>

namespace tp {

// ---- elementwise (elementwise.cc) ----
enum BinaryOp { kAdd, kSub, kMul, kDiv, kMax, kMin, kSqDiff, kPow, kNumBinaryOps };
extern const char* const kBinaryOpNames[kNumBinaryOps];
/** out[outDims] = op(a, b) with numpy broadcasting; aDims/bDims are padded to `rank` with 1s. */
void binary(int op, const float* a, const int64_t* aDims, const float* b, const int64_t* bDims, float* out, const int64_t* outDims, int rank);

enum CompareOp { kEq, kNe, kGt, kGe, kLt, kLe, kNumCompareOps };
extern const char* const kCompareOpNames[kNumCompareOps];
/** out[outDims] = (a op b) ? 1 : 0 with broadcasting (bool output). */
void compare(int op, const float* a, const int64_t* aDims, const float* b, const int64_t* bDims, uint8_t* out, const int64_t* outDims, int rank);

enum UnaryOp {
  kNeg, kExp, kLog, kTanh, kSqrt, kRsqrt, kSquare, kReciprocal, kRelu, kSigmoid, kAbs, kErf,
  kRelu6, kElu, kLeakyRelu, kStep, kClip, kGeluTanh, kNumUnaryOps
};
extern const char* const kUnaryOpNames[kNumUnaryOps];
/** out[n] = op(x[n]); alpha/beta: leaky slope, step value, clip bounds. */
void unary(int op, const float* x, float* out, int64_t n, float alpha, float beta);
/** out[n] = sum of k inputs [n]. */
void add_n(const float* const* xs, int k, float* out, int64_t n);
/** dx[n] = dy · d/dx gelu_tanh(x). */
void gelu_tanh_grad(const float* x, const float* dy, float* dx, int64_t n);

// ---- reductions (reduce.cc) ----
enum ReduceOp { kSum, kMean, kRMax, kRMin, kProd, kNumReduceOps };
extern const char* const kReduceOpNames[kNumReduceOps];
/** Reduces x[dims] over the axes with reduce[i] != 0; out has the kept dims in order. */
void reduce(int op, const float* x, const int64_t* dims, const uint8_t* reduce, int rank, float* out);
/** Softmax over the last axis of x[rows, cols]. */
void softmax(const float* x, float* out, int64_t rows, int64_t cols);

// ---- layout (layout.cc) ----
/** out = transpose(x[dims], perm); elemBytes 4 (float32/int32) or 1 (bool). */
void transpose(const void* x, const int64_t* dims, const int* perm, int rank, void* out, int elemBytes);
/** dst[r·dstStride + dstOffset + c] = src[r·srcStride + srcOffset + c] for r < rows, c < cols (4-byte elements). */
void copy2d(const float* src, int64_t srcOffset, int64_t srcStride, float* dst, int64_t dstOffset, int64_t dstStride, int64_t rows, int64_t cols);
/** out[o, n, i] = x[o, idx[n], i] with x [outer, axisDim, inner]; false if an index is out of range. */
bool gather(const float* x, int64_t outer, int64_t axisDim, int64_t inner, const int32_t* idx, int64_t nIdx, float* out);
/** out[s, i] = Σ_{r: ids[r] = s} x[r, i]; out [numSegments, inner]; ids outside [0, numSegments) skipped. */
void segment_sum(const float* x, const int32_t* ids, int64_t rows, int64_t inner, int64_t numSegments, float* out);

// ---- fused (fused.cc) ----
/** LayerNorm over the last axis of x [N, C]: y [N, C], mean [N], rstd [N] = 1/sqrt(var + eps). */
void layer_norm(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd, int64_t N, int64_t C, float eps);
/** Gradients of layer_norm: dx [N, C], dgamma [C], dbeta [C]. */
void layer_norm_grad(const float* dy, const float* x, const float* gamma, const float* mean, const float* rstd, float* dx, float* dgamma, float* dbeta, int64_t N, int64_t C);
/**
 * AdamW step on n values: m' = b1·m + (1−b1)·g, v' = b2·v + (1−b2)·g², p' = p − lr·((m'/c1) / (sqrt(v'/c2) + eps) + wd·p),
 * with c1, c2 the bias corrections (1 − b^t).
 */
void adamw(const float* p, const float* m, const float* v, const float* g, float* pOut, float* mOut, float* vOut, int64_t n, float lr, double b1, double b2, float eps, float wd, float c1, float c2);

/** y = softmax(scale·x + bias) over the last axis; bias dims padded to `rank`, broadcast against x's. */
void scaled_masked_softmax(const float* x, const int64_t* xDims, const float* bias, const int64_t* biasDims, int rank, float scale, float* y);
/** dx = scale · y · (dy − Σ dy·y) over rows of n (the gradient of the above with respect to x). */
void softmax_grad(const float* dy, const float* y, float scale, float* dx, int64_t rows, int64_t n);

// ---- matmul (gemm.cc) ----
/**
 * out[b] = op(A[b]) · op(B[b]) for b < max(batchA, batchB); a batch of 1 broadcasts.
 * A[b] is [M, K] ([K, M] if transA), B[b] is [K, N] ([N, K] if transB), out[b] is [M, N].
 */
void batch_matmul(const float* A, const float* B, float* out, int64_t batchA, int64_t batchB, int64_t M, int64_t N, int64_t K, bool transA, bool transB);
/** One cblas_sgemm on the calling thread with OpenBLAS's own threads (for benchmarks). */
void sgemm_openblas(const float* A, const float* B, float* out, int64_t M, int64_t N, int64_t K, int blasThreads);
void blas_set_threads(int n);
int blas_get_threads();
const char* blas_config();

}  // namespace tp
