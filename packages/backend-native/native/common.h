// Shared helpers for the kernels: ISA clones, bit casts, grain sizes.
#pragma once
#include <cstdint>
#include <cstring>

// Hot loops are compiled for the baseline ISA plus AVX2/FMA and AVX-512 and picked at load
// time (GCC function multi-versioning), so the binary is portable and never built with
// -march=native.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(TP_NO_CLONES)
#define TP_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define TP_CLONES
#endif

#define TP_RESTRICT __restrict__

namespace tp {

inline float bits_to_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint32_t float_to_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// Elements per parallel chunk for cheap elementwise work; below it a kernel stays on one thread.
constexpr int64_t kElementGrain = 1 << 15;

}  // namespace tp
