// A small fork-join thread pool: the calling thread plus (threads - 1) workers.
// `parallel_for(n, grain, f)` splits [0, n) into contiguous chunks of at least `grain` items
// (a few per thread), runs f(begin, end) on each, and returns when all are done. Chunks are
// claimed dynamically, so if a worker is descheduled (busy machine) the caller simply does
// the rest itself instead of waiting for it. Idle workers spin briefly (kernels come in
// quick succession), then sleep on a futex. Nested calls, and calls from a second thread while
// a job is in flight, run serially on the caller. Kernels stay synchronous.
#pragma once
#include <atomic>
#include <cstdint>
#include <thread>
#include <type_traits>
#include <vector>

namespace tp {

class ThreadPool {
 public:
  using ChunkFn = void (*)(void* ctx, int64_t begin, int64_t end);

  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return nthreads_; }
  /** Spin time of an idle worker before it sleeps, in microseconds. */
  void set_spin_us(int us) { spin_us_.store(us < 0 ? 0 : us); }

  void run(int64_t n, int64_t grain, ChunkFn fn, void* ctx);

  template <class F>
  void parallel_for(int64_t n, int64_t grain, F&& f) {
    using Fn = std::remove_reference_t<F>;
    run(n, grain, [](void* c, int64_t b, int64_t e) { (*static_cast<Fn*>(c))(b, e); }, const_cast<void*>(static_cast<const void*>(&f)));
  }

 private:
  void worker();
  void work();

  int nthreads_;
  std::vector<std::thread> workers_;
  // (job << 32) | (chunks << 16) | next unclaimed chunk.
  std::atomic<uint64_t> claim_{0};
  std::atomic<int> done_{0};
  std::atomic<uint32_t> wake_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<bool> stop_{false};
  // Set while a job is in flight; a second JS thread (worker_threads) then runs its kernel inline.
  std::atomic<bool> busy_{false};
  std::atomic<int> spin_us_{50};
  uint32_t job_ = 0;
  // The current job; written before claim_ publishes it, stable until all its chunks are done.
  ChunkFn fn_ = nullptr;
  void* ctx_ = nullptr;
  int64_t n_ = 0;
};

/** The process-wide pool (created on first use). */
ThreadPool& pool();
/** Threads of the process-wide pool; resizing recreates it. */
int threads();
void set_threads(int n);

}  // namespace tp
