#include "pool.h"

#include <sched.h>

#include <chrono>
#include <memory>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TP_PAUSE() _mm_pause()
#elif defined(__aarch64__)
#define TP_PAUSE() asm volatile("yield")
#else
#define TP_PAUSE() ((void)0)
#endif

namespace tp {

static thread_local bool in_chunk = false;
constexpr int kMaxChunks = 0xffff;
constexpr int kChunksPerThread = 4;

ThreadPool::ThreadPool(int threads) : nthreads_(threads < 1 ? 1 : threads) {
  for (int i = 1; i < nthreads_; i++) workers_.emplace_back([this] { worker(); });
}

ThreadPool::~ThreadPool() {
  stop_.store(true);
  wake_.fetch_add(1);
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

// Claims and runs chunks of the published job until none is left.
void ThreadPool::work() {
  for (;;) {
    uint64_t v = claim_.load(std::memory_order_acquire);
    const uint32_t chunks = static_cast<uint32_t>(v >> 16) & 0xffff;
    const uint32_t idx = static_cast<uint32_t>(v) & 0xffff;
    if (idx >= chunks) return;
    if (!claim_.compare_exchange_weak(v, v + 1, std::memory_order_acq_rel)) continue;
    // The job cannot finish while this chunk is unfinished, so its parameters are stable.
    const int64_t b = n_ * idx / chunks, e = n_ * (idx + 1) / chunks;
    fn_(ctx_, b, e);
    done_.fetch_add(1, std::memory_order_release);
  }
}

void ThreadPool::run(int64_t n, int64_t grain, ChunkFn fn, void* ctx) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
  const int64_t want = (n + grain - 1) / grain;
  int64_t cap = static_cast<int64_t>(nthreads_) * kChunksPerThread;
  if (cap > kMaxChunks) cap = kMaxChunks;
  const int chunks = static_cast<int>(want < cap ? want : cap);
  if (chunks <= 1 || nthreads_ == 1 || in_chunk || busy_.exchange(true, std::memory_order_acquire)) {
    fn(ctx, 0, n);
    return;
  }
  fn_ = fn;
  ctx_ = ctx;
  n_ = n;
  done_.store(0, std::memory_order_relaxed);
  job_++;
  claim_.store((static_cast<uint64_t>(job_) << 32) | (static_cast<uint64_t>(chunks) << 16), std::memory_order_release);
  wake_.fetch_add(1);  // seq_cst: pairs with the sleepers_ increment in worker()
  if (sleepers_.load() > 0) wake_.notify_all();
  in_chunk = true;
  work();
  in_chunk = false;
  for (int i = 0; done_.load(std::memory_order_acquire) < chunks; i++) {
    if (i < 4096) TP_PAUSE();
    else sched_yield();  // a worker holding a chunk was descheduled: let it run
  }
  busy_.store(false, std::memory_order_release);
}

void ThreadPool::worker() {
  in_chunk = true;
  uint32_t seen = 0;  // the pool is new: every job counts
  for (;;) {
    // Wait for the next job: a short busy spin, then spinning with sched_yield (on a busy
    // machine the core goes to whoever needs it), then sleep on the futex.
    auto start = std::chrono::steady_clock::now();
    const auto spin = std::chrono::microseconds(spin_us_.load(std::memory_order_relaxed));
    uint32_t w;
    for (int i = 0;; i++) {
      w = wake_.load(std::memory_order_acquire);
      if (w != seen) break;
      if (i < 64) {
        TP_PAUSE();
        continue;
      }
      if ((i & 15) == 0 && std::chrono::steady_clock::now() - start > spin) {
        sleepers_.fetch_add(1);
        wake_.wait(seen);
        sleepers_.fetch_sub(1);
        start = std::chrono::steady_clock::now();
        i = 0;
        continue;
      }
      sched_yield();
    }
    seen = w;
    if (stop_.load()) return;
    work();
  }
}

static std::unique_ptr<ThreadPool> g_pool;

ThreadPool& pool() {
  if (!g_pool) {
    unsigned hc = std::thread::hardware_concurrency();
    g_pool = std::make_unique<ThreadPool>(hc == 0 ? 1 : (hc > 8 ? 8 : static_cast<int>(hc)));
  }
  return *g_pool;
}

int threads() { return pool().size(); }

void set_threads(int n) {
  if (n < 1) n = 1;
  if (g_pool && g_pool->size() == n) return;
  g_pool.reset();
  g_pool = std::make_unique<ThreadPool>(n);
}

}  // namespace tp
