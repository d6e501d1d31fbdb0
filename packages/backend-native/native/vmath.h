// Vectorisable float exp and tanh (plain arithmetic and selects, so the compiler can vectorise
// the loops that inline them). exp: range reduction x = n·ln2 + r and a degree-7 polynomial,
// about 1 ulp; subnormal results, ±inf and NaN come out of the arithmetic without branches. tanh: odd Taylor series for |x| < 0.55,
// else 1 − 2/(e^{2|x|} + 1); within 3e-7 relative of the double-precision value.
#pragma once
#include "common.h"

namespace tp {

static inline float exp_f(float x) {
  const float kLog2e = 1.44269504088896341f;
  const float kLn2Hi = 0.693145751953125f;
  const float kLn2Lo = 1.42860682030941723212e-6f;
  const float kMagic = 12582912.0f;  // 1.5·2^23: adding it rounds to an integer in the low mantissa bits
  // Clamp (NaN passes through both comparisons and stays NaN): e^-104 underflows to 0 and
  // e^88.73 overflows to inf in the final products, as they should.
  float xc = x < -104.0f ? -104.0f : x;
  xc = xc > 88.73f ? 88.73f : xc;
  const float t = xc * kLog2e + kMagic;
  const float n = t - kMagic;
  const int32_t ni = static_cast<int32_t>(float_to_bits(t) - float_to_bits(kMagic));  // n in [-150, 128]
  float r = xc - n * kLn2Hi;
  r = r - n * kLn2Lo;
  // e^r on |r| <= ln2/2: Taylor to r^7 (truncation < 3e-9 relative).
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  // 2^n as 2^h · 2^(n−h), h = n/2: both factors are normal floats for every n in range, and
  // subnormal results come out of the last multiplication.
  const int32_t h = ni >> 1;
  const float s1 = bits_to_float(static_cast<uint32_t>(h + 127) << 23);
  const float s2 = bits_to_float(static_cast<uint32_t>(ni - h + 127) << 23);
  return (p * s1) * s2;
}

static inline float tanh_f(float x) {
  float ax = x < 0 ? -x : x;
  float e = exp_f(2.0f * ax);
  float big = 1.0f - 2.0f / (e + 1.0f);
  big = x < 0 ? -big : big;
  float x2 = x * x;
  float p = 0.000590027440945586f;
  p = p * x2 - 0.001455834387051318f;
  p = p * x2 + 0.003592128036572481f;
  p = p * x2 - 0.008863235529902197f;
  p = p * x2 + 0.021869488536155203f;
  p = p * x2 - 0.053968253968253968f;
  p = p * x2 + 0.133333333333333333f;
  p = p * x2 - 0.333333333333333333f;
  float small = x + x * x2 * p;
  return ax < 0.55f ? small : big;
}

}  // namespace tp
