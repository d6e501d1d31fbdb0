// N-API bindings. Every function is synchronous, takes host typed arrays (inputs and a
// preallocated output) plus small integer metadata, checks sizes, and calls a kernel.
#include <malloc.h>
#include <napi.h>

#include <string>

#include "kernels.h"
#include "napi-util.h"
#include "pool.h"

namespace {

using namespace tp::napi;

struct BroadcastMeta {
  int rank;
  int64_t od[kMaxRank], ad[kMaxRank], bd[kMaxRank];
  int64_t n, na, nb;
};

// meta: [rank, outDims…, aDims…, bDims…] at argument 4.
BroadcastMeta broadcast_meta(const Napi::CallbackInfo& info) {
  const int32_t* meta = i32(info, 4, "meta", 1);
  BroadcastMeta m{};
  m.rank = read_rank(info, meta);
  i32(info, 4, "meta", 1 + 3 * m.rank);
  m.n = dims_of(meta + 1, m.rank, m.od);
  m.na = dims_of(meta + 1 + m.rank, m.rank, m.ad);
  m.nb = dims_of(meta + 1 + 2 * m.rank, m.rank, m.bd);
  for (int i = 0; i < m.rank; i++)
    if ((m.ad[i] != m.od[i] && m.ad[i] != 1) || (m.bd[i] != m.od[i] && m.bd[i] != 1)) throw Napi::RangeError::New(info.Env(), "shapes do not broadcast");
  return m;
}

Napi::Value Binary(const Napi::CallbackInfo& info) {
  const int op = static_cast<int>(num(info, 0));
  if (op < 0 || op >= tp::kNumBinaryOps) throw Napi::RangeError::New(info.Env(), "unknown binary op");
  const BroadcastMeta m = broadcast_meta(info);
  const float* a = f32(info, 1, "a", m.na);
  const float* b = f32(info, 2, "b", m.nb);
  float* out = f32(info, 3, "out", m.n);
  tp::binary(op, a, m.ad, b, m.bd, out, m.od, m.rank);
  return info.Env().Undefined();
}

Napi::Value Compare(const Napi::CallbackInfo& info) {
  const int op = static_cast<int>(num(info, 0));
  if (op < 0 || op >= tp::kNumCompareOps) throw Napi::RangeError::New(info.Env(), "unknown compare op");
  const BroadcastMeta m = broadcast_meta(info);
  const float* a = f32(info, 1, "a", m.na);
  const float* b = f32(info, 2, "b", m.nb);
  const View o = view(info, 3, "out");
  if (o.type != napi_uint8_array || static_cast<int64_t>(o.length) < m.n) throw Napi::TypeError::New(info.Env(), "compare: out must be a Uint8Array of the output size");
  tp::compare(op, a, m.ad, b, m.bd, static_cast<uint8_t*>(o.data), m.od, m.rank);
  return info.Env().Undefined();
}

Napi::Value Unary(const Napi::CallbackInfo& info) {
  const int op = static_cast<int>(num(info, 0));
  if (op < 0 || op >= tp::kNumUnaryOps) throw Napi::RangeError::New(info.Env(), "unknown unary op");
  const View o = view(info, 2, "out");
  const int64_t n = static_cast<int64_t>(o.length);
  const float* x = f32(info, 1, "x", n);
  float* out = f32(info, 2, "out", n);
  const float alpha = info.Length() > 3 ? static_cast<float>(dbl(info, 3)) : 0.0f;
  const float beta = info.Length() > 4 ? static_cast<float>(dbl(info, 4)) : 0.0f;
  tp::unary(op, x, out, n, alpha, beta);
  return info.Env().Undefined();
}

Napi::Value AddN(const Napi::CallbackInfo& info) {
  Napi::Array list = info[0].As<Napi::Array>();
  const View o = view(info, 1, "out");
  const int64_t n = static_cast<int64_t>(o.length);
  float* out = f32(info, 1, "out", n);
  const uint32_t k = list.Length();
  if (k == 0 || k > 4096) throw Napi::RangeError::New(info.Env(), "addN needs 1..4096 inputs");
  const float* xs[4096];
  for (uint32_t j = 0; j < k; j++) {
    Napi::Value v = list[j];
    Napi::TypedArray t = v.As<Napi::TypedArray>();
    if (t.TypedArrayType() != napi_float32_array || static_cast<int64_t>(t.ElementLength()) < n) throw Napi::TypeError::New(info.Env(), "addN inputs must be Float32Arrays of the output's size");
    xs[j] = v.As<Napi::Float32Array>().Data();
  }
  tp::add_n(xs, static_cast<int>(k), out, n);
  return info.Env().Undefined();
}

Napi::Value GeluGrad(const Napi::CallbackInfo& info) {
  const View o = view(info, 2, "dx");
  const int64_t n = static_cast<int64_t>(o.length);
  tp::gelu_tanh_grad(f32(info, 0, "x", n), f32(info, 1, "dy", n), f32(info, 2, "dx", n), n);
  return info.Env().Undefined();
}

Napi::Value Reduce(const Napi::CallbackInfo& info) {
  const int op = static_cast<int>(num(info, 0));
  if (op < 0 || op >= tp::kNumReduceOps) throw Napi::RangeError::New(info.Env(), "unknown reduce op");
  const int32_t* meta = i32(info, 3, "meta", 1);
  const int rank = read_rank(info, meta);
  i32(info, 3, "meta", 1 + 2 * rank);
  int64_t dims[kMaxRank];
  uint8_t red[kMaxRank];
  const int64_t n = dims_of(meta + 1, rank, dims);
  int64_t outN = 1;
  for (int i = 0; i < rank; i++) {
    red[i] = meta[1 + rank + i] != 0;
    if (!red[i]) outN *= dims[i];
  }
  const float* x = f32(info, 1, "x", n);
  float* out = f32(info, 2, "out", outN);
  tp::reduce(op, x, dims, red, rank, out);
  return info.Env().Undefined();
}

Napi::Value Softmax(const Napi::CallbackInfo& info) {
  const View o = view(info, 1, "out");
  const int64_t n = static_cast<int64_t>(o.length);
  const int64_t cols = num(info, 2);
  if (cols <= 0 || n % cols != 0) throw Napi::RangeError::New(info.Env(), "softmax: size is not a multiple of cols");
  tp::softmax(f32(info, 0, "x", n), f32(info, 1, "out", n), n / cols, cols);
  return info.Env().Undefined();
}

size_t elem_bytes(napi_typedarray_type t) {
  switch (t) {
    case napi_int8_array: case napi_uint8_array: case napi_uint8_clamped_array: return 1;
    case napi_int16_array: case napi_uint16_array: return 2;
    case napi_float64_array: case napi_bigint64_array: case napi_biguint64_array: return 8;
    default: return 4;
  }
}

Napi::Value Transpose(const Napi::CallbackInfo& info) {
  const View x = view(info, 0, "x");
  const View o = view(info, 1, "out");
  if (x.type != o.type) throw Napi::TypeError::New(info.Env(), "transpose: x and out must have the same type");
  const size_t eb = elem_bytes(x.type);
  if (eb == 2) throw Napi::TypeError::New(info.Env(), "transpose: 16-bit arrays are not supported");
  const int32_t* meta = i32(info, 2, "meta", 1);
  const int rank = read_rank(info, meta);
  i32(info, 2, "meta", 1 + 2 * rank);
  int64_t dims[kMaxRank];
  int perm[kMaxRank];
  const int64_t n = dims_of(meta + 1, rank, dims);
  bool seen[kMaxRank] = {false};
  for (int i = 0; i < rank; i++) {
    perm[i] = meta[1 + rank + i];
    if (perm[i] < 0 || perm[i] >= rank || seen[perm[i]]) throw Napi::RangeError::New(info.Env(), "transpose: bad permutation");
    seen[perm[i]] = true;
  }
  if (static_cast<int64_t>(x.length) < n || static_cast<int64_t>(o.length) < n) throw Napi::RangeError::New(info.Env(), "transpose: arrays too small");
  tp::transpose(x.data, dims, perm, rank, o.data, static_cast<int>(eb));
  return info.Env().Undefined();
}

Napi::Value Copy2d(const Napi::CallbackInfo& info) {
  const View s = view(info, 0, "src");
  const View d = view(info, 3, "dst");
  if (elem_bytes(s.type) != 4 || elem_bytes(d.type) != 4) throw Napi::TypeError::New(info.Env(), "copy2d: 4-byte element arrays only");
  const int64_t so = num(info, 1), ss = num(info, 2), dof = num(info, 4), ds = num(info, 5), rows = num(info, 6), cols = num(info, 7);
  if (rows > 0 && cols > 0) {
    if (so < 0 || dof < 0 || ss < cols || ds < cols) throw Napi::RangeError::New(info.Env(), "copy2d: bad offsets or strides");
    if (so + (rows - 1) * ss + cols > static_cast<int64_t>(s.length) || dof + (rows - 1) * ds + cols > static_cast<int64_t>(d.length))
      throw Napi::RangeError::New(info.Env(), "copy2d: out of bounds");
    tp::copy2d(static_cast<const float*>(s.data), so, ss, static_cast<float*>(d.data), dof, ds, rows, cols);
  }
  return info.Env().Undefined();
}

Napi::Value Gather(const Napi::CallbackInfo& info) {
  const int64_t outer = num(info, 3), axisDim = num(info, 4), inner = num(info, 5);
  const View idxV = view(info, 1, "indices");
  const int64_t nIdx = static_cast<int64_t>(idxV.length);
  const float* x = f32(info, 0, "x", outer * axisDim * inner);
  const int32_t* idx = i32(info, 1, "indices", nIdx);
  float* out = f32(info, 2, "out", outer * nIdx * inner);
  return Napi::Boolean::New(info.Env(), tp::gather(x, outer, axisDim, inner, idx, nIdx, out));
}

Napi::Value SegmentSum(const Napi::CallbackInfo& info) {
  const int64_t rows = num(info, 3), inner = num(info, 4), numSegments = num(info, 5);
  const float* x = f32(info, 0, "x", rows * inner);
  const int32_t* ids = i32(info, 1, "segmentIds", rows);
  float* out = f32(info, 2, "out", numSegments * inner);
  tp::segment_sum(x, ids, rows, inner, numSegments, out);
  return info.Env().Undefined();
}

Napi::Value Matmul(const Napi::CallbackInfo& info) {
  const int64_t batchA = num(info, 3), batchB = num(info, 4), M = num(info, 5), N = num(info, 6), K = num(info, 7);
  const bool tA = info[8].ToBoolean(), tB = info[9].ToBoolean();
  if (batchA != batchB && batchA != 1 && batchB != 1) throw Napi::RangeError::New(info.Env(), "matmul: batch sizes do not broadcast");
  if (M > INT32_MAX || N > INT32_MAX || K > INT32_MAX) throw Napi::RangeError::New(info.Env(), "matmul: dimension too large");
  const int64_t batch = batchA > batchB ? batchA : batchB;
  const float* a = f32(info, 0, "a", batchA * M * K);
  const float* b = f32(info, 1, "b", batchB * K * N);
  float* out = f32(info, 2, "out", batch * M * N);
  tp::batch_matmul(a, b, out, batchA, batchB, M, N, K, tA, tB);
  return info.Env().Undefined();
}

Napi::Value SgemmOpenblas(const Napi::CallbackInfo& info) {
  const int64_t M = num(info, 3), N = num(info, 4), K = num(info, 5);
  const int threads = static_cast<int>(num(info, 6));
  tp::sgemm_openblas(f32(info, 0, "a", M * K), f32(info, 1, "b", K * N), f32(info, 2, "out", M * N), M, N, K, threads < 1 ? 1 : threads);
  return info.Env().Undefined();
}

Napi::Value SetThreads(const Napi::CallbackInfo& info) {
  tp::set_threads(static_cast<int>(num(info, 0)));
  return Napi::Number::New(info.Env(), tp::threads());
}

Napi::Value SetSpinMicros(const Napi::CallbackInfo& info) {
  tp::pool().set_spin_us(static_cast<int>(num(info, 0)));
  return info.Env().Undefined();
}

Napi::Value TuneMalloc(const Napi::CallbackInfo& info) {
  // Large mmap and trim thresholds: freed big blocks stay in the heap instead of being
  // unmapped and faulted in again page by page (docs/engineering-notes.md §15).
  const int mmapThreshold = static_cast<int>(num(info, 0)), trimThreshold = static_cast<int>(num(info, 1));
  bool ok = true;
#ifdef M_MMAP_THRESHOLD
  if (mmapThreshold > 0) ok = mallopt(M_MMAP_THRESHOLD, mmapThreshold) == 1 && ok;
  if (trimThreshold > 0) ok = mallopt(M_TRIM_THRESHOLD, trimThreshold) == 1 && ok;
#else
  ok = false;
#endif
  return Napi::Boolean::New(info.Env(), ok);
}

Napi::Array names(Napi::Env env, const char* const* list, int n) {
  Napi::Array a = Napi::Array::New(env, n);
  for (int i = 0; i < n; i++) a.Set(i, Napi::String::New(env, list[i]));
  return a;
}

Napi::Value Info(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o = Napi::Object::New(env);
  o.Set("threads", tp::threads());
  o.Set("blasThreads", tp::blas_get_threads());
  o.Set("blasConfig", tp::blas_config());
  const char* isa = "baseline";
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("x86-64-v4")) isa = "x86-64-v4";
  else if (__builtin_cpu_supports("x86-64-v3")) isa = "x86-64-v3";
  else isa = "x86-64";
#endif
  o.Set("isa", isa);
  o.Set("binaryOps", names(env, tp::kBinaryOpNames, tp::kNumBinaryOps));
  o.Set("compareOps", names(env, tp::kCompareOpNames, tp::kNumCompareOps));
  o.Set("unaryOps", names(env, tp::kUnaryOpNames, tp::kNumUnaryOps));
  o.Set("reduceOps", names(env, tp::kReduceOpNames, tp::kNumReduceOps));
  return o;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  tp::blas_set_threads(1);
  exports.Set("info", Napi::Function::New(env, Info));
  exports.Set("setThreads", Napi::Function::New(env, SetThreads));
  exports.Set("setSpinMicros", Napi::Function::New(env, SetSpinMicros));
  exports.Set("tuneMalloc", Napi::Function::New(env, TuneMalloc));
  exports.Set("binary", Napi::Function::New(env, Binary));
  exports.Set("compare", Napi::Function::New(env, Compare));
  exports.Set("unary", Napi::Function::New(env, Unary));
  exports.Set("addN", Napi::Function::New(env, AddN));
  exports.Set("geluGrad", Napi::Function::New(env, GeluGrad));
  exports.Set("reduce", Napi::Function::New(env, Reduce));
  tp::napi::export_fused(env, exports);
  exports.Set("softmax", Napi::Function::New(env, Softmax));
  exports.Set("transpose", Napi::Function::New(env, Transpose));
  exports.Set("copy2d", Napi::Function::New(env, Copy2d));
  exports.Set("gather", Napi::Function::New(env, Gather));
  exports.Set("segmentSum", Napi::Function::New(env, SegmentSum));
  exports.Set("matmul", Napi::Function::New(env, Matmul));
  exports.Set("sgemmOpenblas", Napi::Function::New(env, SgemmOpenblas));
  return exports;
}

}  // namespace

NODE_API_MODULE(telepath_native, Init)
