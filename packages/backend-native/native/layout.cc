// Data-movement kernels: transpose, strided 2-D copy (concat, split, slice), gather and
// unsorted segment sum (gather's gradient).
#include <cstring>
#include <vector>

#include "common.h"
#include "kernels.h"
#include "pool.h"

namespace tp {

namespace {

constexpr int kMaxRank = 12;
constexpr int64_t kTile = 16;

template <class T>
void transpose_t(const T* x, const int64_t* rawDims, const int* rawPerm, int rank, T* out) {
  // Drop size-1 axes, then merge axes that stay adjacent and in order.
  int64_t d0[kMaxRank];
  int map[kMaxRank];  // old axis -> new axis (or -1)
  int r0 = 0;
  int64_t total = 1;
  for (int k = 0; k < rank; k++) {
    total *= rawDims[k];
    if (rawDims[k] == 1) {
      map[k] = -1;
      continue;
    }
    map[k] = r0;
    d0[r0++] = rawDims[k];
  }
  if (total == 0) return;
  int p0[kMaxRank];
  int q = 0;
  for (int i = 0; i < rank; i++)
    if (map[rawPerm[i]] >= 0) p0[q++] = map[rawPerm[i]];
  // Merge: out axes i, i+1 with p0[i+1] == p0[i] + 1 become one input run.
  int64_t dims[kMaxRank];
  int perm[kMaxRank];
  int groupOf[kMaxRank];  // input axis (after drop) -> group start flag
  for (int k = 0; k < r0; k++) groupOf[k] = 1;
  for (int i = 0; i + 1 < r0; i++)
    if (p0[i + 1] == p0[i] + 1) groupOf[p0[i + 1]] = 0;  // continues previous
  int newIndex[kMaxRank];
  int r = 0;
  for (int k = 0; k < r0; k++) {
    if (groupOf[k]) {
      dims[r] = d0[k];
      newIndex[k] = r++;
    } else {
      dims[r - 1] *= d0[k];
      newIndex[k] = r - 1;
    }
  }
  int pi = 0;
  for (int i = 0; i < r0; i++)
    if (groupOf[p0[i]]) perm[pi++] = newIndex[p0[i]];
  if (r <= 1) {
    std::memcpy(out, x, static_cast<size_t>(total) * sizeof(T));
    return;
  }
  int64_t inStride[kMaxRank], outDims[kMaxRank], outStride[kMaxRank], strideOfOut[kMaxRank];
  inStride[r - 1] = 1;
  for (int k = r - 2; k >= 0; k--) inStride[k] = inStride[k + 1] * dims[k + 1];
  for (int i = 0; i < r; i++) outDims[i] = dims[perm[i]];
  outStride[r - 1] = 1;
  for (int i = r - 2; i >= 0; i--) outStride[i] = outStride[i + 1] * outDims[i + 1];
  for (int i = 0; i < r; i++) strideOfOut[i] = inStride[perm[i]];  // input stride of out axis i

  if (perm[r - 1] == r - 1) {
    // Inner axis unchanged: copy rows of `inner` contiguous elements.
    const int64_t inner = dims[r - 1];
    const int64_t rows = total / inner;
    const int64_t grain = inner >= kElementGrain ? 1 : (kElementGrain + inner - 1) / inner;
    pool().parallel_for(rows, grain, [&](int64_t b, int64_t e) {
      for (int64_t u = b; u < e; u++) {
        int64_t rem = u, inOff = 0;
        for (int i = r - 2; i >= 0; i--) {
          const int64_t idx = rem % outDims[i];
          rem /= outDims[i];
          inOff += idx * strideOfOut[i];
        }
        std::memcpy(out + u * inner, x + inOff, static_cast<size_t>(inner) * sizeof(T));
      }
    });
    return;
  }
  // 2-D tiles between the output's last axis (input axis perm[r-1], input stride sA) and the
  // input's last axis (output axis j, output stride sB); other axes are iterated.
  int j = 0;
  while (perm[j] != r - 1) j++;
  const int64_t nA = outDims[r - 1], sA = strideOfOut[r - 1];
  const int64_t nB = outDims[j], sB = outStride[j];
  int other[kMaxRank];
  int no = 0;
  for (int i = 0; i < r - 1; i++)
    if (i != j) other[no++] = i;
  int64_t outer = 1;
  for (int t = 0; t < no; t++) outer *= outDims[other[t]];
  const int64_t per = nA * nB;
  const int64_t grain = per >= kElementGrain ? 1 : (kElementGrain + per - 1) / per;
  pool().parallel_for(outer, grain, [&](int64_t b, int64_t e) {
    for (int64_t u = b; u < e; u++) {
      int64_t rem = u, inOff = 0, outOff = 0;
      for (int t = no - 1; t >= 0; t--) {
        const int i = other[t];
        const int64_t idx = rem % outDims[i];
        rem /= outDims[i];
        inOff += idx * strideOfOut[i];
        outOff += idx * outStride[i];
      }
      const T* xin = x + inOff;
      T* o = out + outOff;
      for (int64_t b0 = 0; b0 < nB; b0 += kTile) {
        const int64_t b1 = b0 + kTile < nB ? b0 + kTile : nB;
        for (int64_t a0 = 0; a0 < nA; a0 += kTile) {
          const int64_t a1 = a0 + kTile < nA ? a0 + kTile : nA;
          for (int64_t bb = b0; bb < b1; bb++)
            for (int64_t aa = a0; aa < a1; aa++) o[bb * sB + aa] = xin[aa * sA + bb];
        }
      }
    }
  });
}

}  // namespace

void transpose(const void* x, const int64_t* dims, const int* perm, int rank, void* out, int elemBytes) {
  if (elemBytes == 4) transpose_t(static_cast<const uint32_t*>(x), dims, perm, rank, static_cast<uint32_t*>(out));
  else if (elemBytes == 1) transpose_t(static_cast<const uint8_t*>(x), dims, perm, rank, static_cast<uint8_t*>(out));
  else if (elemBytes == 8) transpose_t(static_cast<const uint64_t*>(x), dims, perm, rank, static_cast<uint64_t*>(out));
}

void copy2d(const float* src, int64_t srcOffset, int64_t srcStride, float* dst, int64_t dstOffset, int64_t dstStride, int64_t rows, int64_t cols) {
  if (rows <= 0 || cols <= 0) return;
  const int64_t grain = cols >= kElementGrain ? 1 : (kElementGrain + cols - 1) / cols;
  pool().parallel_for(rows, grain, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; r++) std::memcpy(dst + dstOffset + r * dstStride, src + srcOffset + r * srcStride, static_cast<size_t>(cols) * 4);
  });
}

bool gather(const float* x, int64_t outer, int64_t axisDim, int64_t inner, const int32_t* idx, int64_t nIdx, float* out) {
  for (int64_t n = 0; n < nIdx; n++)
    if (idx[n] < 0 || idx[n] >= axisDim) return false;
  const int64_t rows = outer * nIdx;
  const int64_t grain = inner >= kElementGrain ? 1 : (kElementGrain + inner - 1) / (inner > 0 ? inner : 1);
  pool().parallel_for(rows, grain, [&](int64_t b, int64_t e) {
    for (int64_t u = b; u < e; u++) {
      const int64_t o = u / nIdx, n = u % nIdx;
      std::memcpy(out + u * inner, x + (o * axisDim + idx[n]) * inner, static_cast<size_t>(inner) * 4);
    }
  });
  return true;
}

void segment_sum(const float* x, const int32_t* ids, int64_t rows, int64_t inner, int64_t numSegments, float* out) {
  // Counting sort of the rows by segment, then each segment sums its rows in double.
  std::vector<int64_t> start(static_cast<size_t>(numSegments) + 1, 0);
  for (int64_t r = 0; r < rows; r++)
    if (ids[r] >= 0 && ids[r] < numSegments) start[ids[r] + 1]++;
  for (int64_t s = 0; s < numSegments; s++) start[s + 1] += start[s];
  std::vector<int64_t> order(static_cast<size_t>(start[numSegments]));
  {
    std::vector<int64_t> fill(start.begin(), start.end() - 1);
    for (int64_t r = 0; r < rows; r++)
      if (ids[r] >= 0 && ids[r] < numSegments) order[fill[ids[r]]++] = r;
  }
  const int64_t work = rows * inner / (numSegments > 0 ? numSegments : 1) + inner;
  const int64_t grain = work >= kElementGrain ? 1 : (kElementGrain + work - 1) / work;
  pool().parallel_for(numSegments, grain, [&](int64_t b, int64_t e) {
    std::vector<double> acc(static_cast<size_t>(inner));
    for (int64_t s = b; s < e; s++) {
      for (int64_t i = 0; i < inner; i++) acc[i] = 0;
      for (int64_t k = start[s]; k < start[s + 1]; k++) {
        const float* row = x + order[k] * inner;
        for (int64_t i = 0; i < inner; i++) acc[i] += row[i];
      }
      float* o = out + s * inner;
      for (int64_t i = 0; i < inner; i++) o[i] = static_cast<float>(acc[i]);
    }
  });
}

}  // namespace tp
