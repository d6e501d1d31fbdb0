// N-API bindings of the fused kernels (LayerNorm, attention softmax, AdamW).
#include <napi.h>

#include "kernels.h"
#include "napi-util.h"

namespace tp::napi {

namespace {

Napi::Value LayerNorm(const Napi::CallbackInfo& info) {
  // (x, gamma, beta, y, mean, rstd, C, eps)
  const int64_t C = num(info, 6);
  const View xv = view(info, 0, "x");
  if (C <= 0 || xv.length % C != 0) throw Napi::RangeError::New(info.Env(), "layerNorm: size is not a multiple of C");
  const int64_t N = static_cast<int64_t>(xv.length) / C;
  tp::layer_norm(f32(info, 0, "x", N * C), f32(info, 1, "gamma", C), f32(info, 2, "beta", C), f32(info, 3, "y", N * C), f32(info, 4, "mean", N), f32(info, 5, "rstd", N), N, C,
                 static_cast<float>(dbl(info, 7)));
  return info.Env().Undefined();
}

Napi::Value LayerNormGrad(const Napi::CallbackInfo& info) {
  // (dy, x, gamma, mean, rstd, dx, dgamma, dbeta, C)
  const int64_t C = num(info, 8);
  const View xv = view(info, 1, "x");
  if (C <= 0 || xv.length % C != 0) throw Napi::RangeError::New(info.Env(), "layerNormGrad: size is not a multiple of C");
  const int64_t N = static_cast<int64_t>(xv.length) / C;
  tp::layer_norm_grad(f32(info, 0, "dy", N * C), f32(info, 1, "x", N * C), f32(info, 2, "gamma", C), f32(info, 3, "mean", N), f32(info, 4, "rstd", N), f32(info, 5, "dx", N * C),
                      f32(info, 6, "dgamma", C), f32(info, 7, "dbeta", C), N, C);
  return info.Env().Undefined();
}

Napi::Value ScaledMaskedSoftmax(const Napi::CallbackInfo& info) {
  // (x, bias, y, meta [rank, xDims…, biasDims…], scale)
  const int32_t* meta = i32(info, 3, "meta", 1);
  const int rank = read_rank(info, meta);
  if (rank < 1) throw Napi::RangeError::New(info.Env(), "scaledMaskedSoftmax: x must have rank >= 1");
  i32(info, 3, "meta", 1 + 2 * rank);
  int64_t xd[kMaxRank], bd[kMaxRank];
  const int64_t n = dims_of(meta + 1, rank, xd);
  const int64_t nb = dims_of(meta + 1 + rank, rank, bd);
  for (int i = 0; i < rank; i++)
    if (bd[i] != xd[i] && bd[i] != 1) throw Napi::RangeError::New(info.Env(), "scaledMaskedSoftmax: bias does not broadcast to x");
  tp::scaled_masked_softmax(f32(info, 0, "x", n), xd, f32(info, 1, "bias", nb), bd, rank, static_cast<float>(dbl(info, 4)), f32(info, 2, "y", n));
  return info.Env().Undefined();
}

Napi::Value SoftmaxGrad(const Napi::CallbackInfo& info) {
  // (dy, y, dx, cols, scale)
  const View yv = view(info, 1, "y");
  const int64_t n = static_cast<int64_t>(yv.length), cols = num(info, 3);
  if (cols <= 0 || n % cols != 0) throw Napi::RangeError::New(info.Env(), "softmaxGrad: size is not a multiple of cols");
  tp::softmax_grad(f32(info, 0, "dy", n), f32(info, 1, "y", n), static_cast<float>(dbl(info, 4)), f32(info, 2, "dx", n), n / cols, cols);
  return info.Env().Undefined();
}

Napi::Value AdamW(const Napi::CallbackInfo& info) {
  // (p, m, v, g, pOut, mOut, vOut, lr, b1, b2, eps, wd, c1, c2)
  const View pv = view(info, 0, "param");
  const int64_t n = static_cast<int64_t>(pv.length);
  auto f = [&](size_t i) { return static_cast<float>(dbl(info, i)); };
  tp::adamw(f32(info, 0, "param", n), f32(info, 1, "m", n), f32(info, 2, "v", n), f32(info, 3, "grad", n), f32(info, 4, "paramOut", n), f32(info, 5, "mOut", n), f32(info, 6, "vOut", n), n, f(7), dbl(info, 8), dbl(info, 9),
            f(10), f(11), f(12), f(13));
  return info.Env().Undefined();
}

}  // namespace

void export_fused(Napi::Env env, Napi::Object exports) {
  exports.Set("layerNorm", Napi::Function::New(env, LayerNorm));
  exports.Set("layerNormGrad", Napi::Function::New(env, LayerNormGrad));
  exports.Set("adamw", Napi::Function::New(env, AdamW));
  exports.Set("scaledMaskedSoftmax", Napi::Function::New(env, ScaledMaskedSoftmax));
  exports.Set("softmaxGrad", Napi::Function::New(env, SoftmaxGrad));
}

}  // namespace tp::napi
