// Matrix products through OpenBLAS cblas_sgemm. OpenBLAS runs single-threaded; parallelism
// comes from our pool: whole matrices of a batch per thread, or, for batches smaller than the
// pool, row (or column) blocks of each product. The two pools never run at the same time.
#include <cstring>

#include "common.h"
#include "kernels.h"
#include "pool.h"

// CBLAS / OpenBLAS entry points (declared here so no particular cblas.h is needed).
extern "C" {
void cblas_sgemm(int order, int transA, int transB, int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb, float beta, float* C, int ldc);
void openblas_set_num_threads(int n);
int openblas_get_num_threads(void);
char* openblas_get_config(void);
}

namespace tp {

namespace {

constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;
constexpr int64_t kMinParallelFlops = int64_t{1} << 19;
constexpr int64_t kAlign = 16;

struct Gemm {
  const float* A;
  const float* B;
  float* C;
  int64_t M, N, K;
  bool tA, tB;
};

// C[m0:m1, :] of one product.
void gemm_rows(const Gemm& g, int64_t m0, int64_t m1) {
  if (m1 <= m0) return;
  const float* a = g.tA ? g.A + m0 : g.A + m0 * g.K;
  cblas_sgemm(kRowMajor, g.tA ? kTrans : kNoTrans, g.tB ? kTrans : kNoTrans, static_cast<int>(m1 - m0), static_cast<int>(g.N), static_cast<int>(g.K), 1.0f, a,
              static_cast<int>(g.tA ? g.M : g.K), g.B, static_cast<int>(g.tB ? g.K : g.N), 0.0f, g.C + m0 * g.N, static_cast<int>(g.N));
}

// C[:, n0:n1] of one product.
void gemm_cols(const Gemm& g, int64_t n0, int64_t n1) {
  if (n1 <= n0) return;
  const float* b = g.tB ? g.B + n0 * g.K : g.B + n0;
  cblas_sgemm(kRowMajor, g.tA ? kTrans : kNoTrans, g.tB ? kTrans : kNoTrans, static_cast<int>(g.M), static_cast<int>(n1 - n0), static_cast<int>(g.K), 1.0f, g.A,
              static_cast<int>(g.tA ? g.M : g.K), b, static_cast<int>(g.tB ? g.K : g.N), 0.0f, g.C + n0, static_cast<int>(g.N));
}

int64_t block_edge(int64_t n, int64_t parts, int64_t i) {
  if (i >= parts) return n;
  int64_t e = n * i / parts;
  e = (e + kAlign - 1) / kAlign * kAlign;
  return e > n ? n : e;
}

}  // namespace

void batch_matmul(const float* A, const float* B, float* out, int64_t batchA, int64_t batchB, int64_t M, int64_t N, int64_t K, bool transA, bool transB) {
  const int64_t batch = batchA > batchB ? batchA : batchB;
  if (batch == 0 || M == 0 || N == 0) return;
  if (K == 0) {
    std::memset(out, 0, static_cast<size_t>(batch * M * N) * 4);
    return;
  }
  const int64_t strideA = batchA == 1 ? 0 : M * K, strideB = batchB == 1 ? 0 : K * N, strideC = M * N;
  auto at = [&](int64_t b) { return Gemm{A + b * strideA, B + b * strideB, out + b * strideC, M, N, K, transA, transB}; };
  const int nt = pool().size();
  const int64_t flops = 2 * batch * M * N * K;
  if (nt == 1 || flops < kMinParallelFlops) {
    for (int64_t b = 0; b < batch; b++) gemm_rows(at(b), 0, M);
    return;
  }
  if (batch % nt == 0 || batch >= 4 * nt) {
    pool().parallel_for(batch, 1, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; b++) gemm_rows(at(b), 0, M);
    });
    return;
  }
  // Split each product into nt row blocks (or column blocks when M is small).
  const bool byRows = M >= N || M >= 2 * kAlign * nt;
  const int64_t parts = nt;
  pool().parallel_for(batch * parts, 1, [&](int64_t u0, int64_t u1) {
    for (int64_t u = u0; u < u1; u++) {
      const Gemm g = at(u / parts);
      const int64_t p = u % parts;
      if (byRows) gemm_rows(g, block_edge(M, parts, p), block_edge(M, parts, p + 1));
      else gemm_cols(g, block_edge(N, parts, p), block_edge(N, parts, p + 1));
    }
  });
}

void sgemm_openblas(const float* A, const float* B, float* out, int64_t M, int64_t N, int64_t K, int blasThreads) {
  openblas_set_num_threads(blasThreads);
  cblas_sgemm(kRowMajor, kNoTrans, kNoTrans, static_cast<int>(M), static_cast<int>(N), static_cast<int>(K), 1.0f, A, static_cast<int>(K), B, static_cast<int>(N), 0.0f, out,
              static_cast<int>(N));
  openblas_set_num_threads(1);
}

void blas_set_threads(int n) { openblas_set_num_threads(n); }
int blas_get_threads() { return openblas_get_num_threads(); }
const char* blas_config() { return openblas_get_config(); }

}  // namespace tp
