// Not a test (hidden tag, run by name on the device): classification
// throughput of the GPU and CPU engines on reads already in memory, so the
// input stage (FASTQ parsing) is out of the measurement, plus a check that
// both engines agree on every read.
//
//   METAWARP_BENCH_DB=db.mwdb METAWARP_BENCH_R1=r1.fq METAWARP_BENCH_R2=r2.fq
//   [METAWARP_BENCH_THREADS=16] [METAWARP_BENCH_BATCH=32768] [METAWARP_BENCH_LANES=8]
//   [METAWARP_BENCH_SHARDS=1 (shards on the one GPU)]
//   test_gpu_query "[benchmark]"
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "db/database.hpp"
#include "pipeline/query/classifier.hpp"
#include "pipeline/query/gpu_query.hpp"
#include "pipeline/query/query.hpp"
#include "../query/query_test_data.hpp"

using namespace metawarp;
using test::fastq_sequences;

namespace {

std::size_t env_number(const char* name, std::size_t fallback) {
  const char* v = std::getenv(name);
  return v ? std::size_t(std::stoull(v)) : fallback;
}

// Seconds for `threads` workers, each with its own BatchClassifier, to
// classify all reads in batches taken from a shared counter.
double classify_all(const pipeline::QueryEngine& engine, const std::vector<pipeline::ReadView>& reads,
                    std::vector<pipeline::ReadResult>& results, std::size_t threads,
                    std::size_t batch) {
  std::atomic<std::size_t> next{0};
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  for (std::size_t t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      const auto classifier = engine.make_classifier();
      for (;;) {
        const std::size_t first = next.fetch_add(batch);
        if (first >= reads.size()) break;
        const std::size_t n = std::min(batch, reads.size() - first);
        classifier->classify(std::span(reads).subspan(first, n),
                             std::span(results).subspan(first, n));
      }
    });
  }
  for (auto& w : workers) w.join();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

TEST_CASE("GPU and CPU engine throughput on reads in memory", "[.][benchmark]") {
  const char* db_path = std::getenv("METAWARP_BENCH_DB");
  const char* r1_path = std::getenv("METAWARP_BENCH_R1");
  const char* r2_path = std::getenv("METAWARP_BENCH_R2");
  REQUIRE(db_path != nullptr);
  REQUIRE(r1_path != nullptr);
  const std::size_t threads = env_number("METAWARP_BENCH_THREADS", 16);
  const std::size_t batch = env_number("METAWARP_BENCH_BATCH", 32768);
  const db::Database db = db::load(db_path);
  const auto r1 = fastq_sequences(r1_path);
  const auto r2 = r2_path ? fastq_sequences(r2_path) : std::vector<std::string>();
  std::vector<pipeline::ReadView> reads;
  for (std::size_t i = 0; i < r1.size(); ++i)
    reads.push_back({r1[i], r2.empty() ? std::string_view() : std::string_view(r2[i])});
  const pipeline::ClassifierOptions options;

  pipeline::GpuQueryOptions gpu_options;
  gpu_options.lanes = std::uint32_t(env_number("METAWARP_BENCH_LANES", gpu_options.lanes));
  gpu_options.layout.shards_per_gpu = unsigned(env_number("METAWARP_BENCH_SHARDS", 1));
  const auto gpu = pipeline::make_gpu_query_engine(db, options, gpu_options);
  std::vector<pipeline::ReadResult> gpu_results(reads.size());
  classify_all(*gpu, reads, gpu_results, threads, batch);  // warm-up: buffers, clocks
  const pipeline::GpuQueryStats warm = gpu->stats();
  const double gpu_seconds = classify_all(*gpu, reads, gpu_results, threads, batch);
  const pipeline::GpuQueryStats s = gpu->stats();
  std::printf("GPU database: %llu bytes in %llu shards (%.3f GiB per Gbp)\n",
              (unsigned long long)s.database_bytes, (unsigned long long)s.shards,
              [&] {
                double bases = 0;
                for (const db::Target& t : db.targets) bases += double(t.length);
                return double(s.database_bytes) / double(1 << 30) / (bases / 1e9);
              }());

  const auto cpu = pipeline::make_cpu_query_engine(db, options);
  std::vector<pipeline::ReadResult> cpu_results(reads.size());
  const double cpu_seconds = classify_all(*cpu, reads, cpu_results, threads, batch);

  std::printf("engine throughput, %zu %s in memory, %zu threads, %u GPU lanes, batch %zu:\n"
              "  GPU %.3f s, %.0f per s;  CPU %.3f s, %.0f per s;  GPU/CPU %.1fx\n",
              reads.size(), r2.empty() ? "reads" : "pairs", threads, gpu_options.lanes, batch,
              gpu_seconds,
              double(reads.size()) / gpu_seconds, cpu_seconds, double(reads.size()) / cpu_seconds,
              cpu_seconds / gpu_seconds);
  std::printf("  GPU stages of the timed run, summed over %llu lanes: pack %.3f s, copy in %.3f s, "
              "sketch+lookup %.3f s, gather+sort %.3f s, candidates %.3f s, copy out %.3f s, "
              "assign %.3f s; %llu hits\n",
              (unsigned long long)s.lanes, s.pack_seconds - warm.pack_seconds,
              s.copy_in_seconds - warm.copy_in_seconds,
              s.sketch_lookup_seconds - warm.sketch_lookup_seconds,
              s.gather_sort_seconds - warm.gather_sort_seconds,
              s.candidates_seconds - warm.candidates_seconds,
              s.copy_out_seconds - warm.copy_out_seconds, s.assign_seconds - warm.assign_seconds,
              (unsigned long long)(s.hits - warm.hits));
  std::size_t differ = 0;
  for (std::size_t i = 0; i < reads.size(); ++i) {
    const auto& a = cpu_results[i];
    const auto& b = gpu_results[i];
    bool same = a.windows == b.windows && a.hits == b.hits &&
                a.candidate_count == b.candidate_count &&
                a.assignment.taxid == b.assignment.taxid &&
                a.assignment.best_hits == b.assignment.best_hits &&
                a.assignment.candidates_used == b.assignment.candidates_used;
    for (std::uint32_t c = 0; same && c < a.candidate_count; ++c)
      same = a.top[c].target == b.top[c].target && a.top[c].hits == b.top[c].hits &&
             a.top[c].first_window == b.top[c].first_window &&
             a.top[c].last_window == b.top[c].last_window;
    differ += !same;
  }
  std::printf("  reads whose GPU and CPU results differ: %zu\n", differ);
  CHECK(differ == 0);
}
