// Helpers shared by the N-API binding files: typed-array views with size checks, numbers,
// and the [rank, dims…] metadata convention.
#pragma once
#include <napi.h>

#include <cstdint>
#include <string>

namespace tp::napi {


struct View {
  void* data;
  size_t length;
  napi_typedarray_type type;
};

inline View view(const Napi::CallbackInfo& info, size_t i, const char* what) {
  napi_value v = info[i];
  bool is = false;
  napi_is_typedarray(info.Env(), v, &is);
  if (!is) throw Napi::TypeError::New(info.Env(), std::string(what) + " must be a typed array");
  View out{};
  napi_value ab;
  size_t offset;
  napi_get_typedarray_info(info.Env(), v, &out.type, &out.length, &out.data, &ab, &offset);
  return out;
}

inline float* f32(const Napi::CallbackInfo& info, size_t i, const char* what, int64_t need) {
  View v = view(info, i, what);
  if (v.type != napi_float32_array) throw Napi::TypeError::New(info.Env(), std::string(what) + " must be a Float32Array");
  if (need >= 0 && static_cast<int64_t>(v.length) < need)
    throw Napi::RangeError::New(info.Env(), std::string(what) + " has " + std::to_string(v.length) + " elements, needs " + std::to_string(need));
  return static_cast<float*>(v.data);
}

inline int32_t* i32(const Napi::CallbackInfo& info, size_t i, const char* what, int64_t need) {
  View v = view(info, i, what);
  if (v.type != napi_int32_array) throw Napi::TypeError::New(info.Env(), std::string(what) + " must be an Int32Array");
  if (need >= 0 && static_cast<int64_t>(v.length) < need)
    throw Napi::RangeError::New(info.Env(), std::string(what) + " has " + std::to_string(v.length) + " elements, needs " + std::to_string(need));
  return static_cast<int32_t*>(v.data);
}

inline int64_t num(const Napi::CallbackInfo& info, size_t i) { return info[i].As<Napi::Number>().Int64Value(); }
inline double dbl(const Napi::CallbackInfo& info, size_t i) { return info[i].As<Napi::Number>().DoubleValue(); }

constexpr int kMaxRank = 12;

// meta: [rank, d0..d(rank-1), ...] → dims and element count.
inline int read_rank(const Napi::CallbackInfo& info, const int32_t* meta) {
  const int rank = meta[0];
  if (rank < 0 || rank > kMaxRank) throw Napi::RangeError::New(info.Env(), "rank must be in [0, 12]");
  return rank;
}

inline int64_t dims_of(const int32_t* src, int rank, int64_t* dst) {
  int64_t n = 1;
  for (int i = 0; i < rank; i++) {
    dst[i] = src[i];
    n *= src[i];
  }
  return n;
}

/** Registers the fused-kernel bindings (addon-fused.cc). */
void export_fused(Napi::Env env, Napi::Object exports);

}  // namespace tp::napi
