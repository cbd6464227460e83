#pragma once
// `metawarp query` on the CPU: reads -> per-read calls -> outputs.
//
// One reader thread parses batches of reads (or pairs), worker threads
// classify whole batches, and the calling thread writes the batches' output
// in input order. The output is therefore identical for any thread count and
// batch size. This is the reference the GPU query must reproduce.
#include <cstdint>
#include <string>
#include <vector>

#include "db/database.hpp"
#include "pipeline/classifier.hpp"
#include "taxonomy/rank.hpp"

namespace metawarp::pipeline {

struct QueryOptions {
  // One file: single-end reads (or interleaved pairs with `interleaved`);
  // two files: mates 1 and 2. "-" reads stdin.
  std::vector<std::string> reads;
  bool interleaved = false;
  ClassifierOptions classifier;
  unsigned threads = 1;
  std::size_t batch_size = 4096;  // reads or pairs per batch

  // Output paths; "-" is stdout (at most one of them), empty: not written.
  std::string output = "-";   // per-read TSV
  std::string kraken_output;  // Kraken2 per-read format
  std::string report;         // Kraken2 report
  std::string abundance;      // abundance table at abundance_rank
  taxonomy::CanonicalRank abundance_rank = taxonomy::CanonicalRank::species;
  bool top_hits = false;      // top-hits column in the per-read TSV
};

struct QuerySummary {
  std::uint64_t reads = 0;       // reads or pairs
  std::uint64_t classified = 0;
  std::uint64_t bases = 0;
  double seconds = 0;            // reading, classifying and writing
};

// Throws io::InputError for bad reads (mismatched pairs included) and
// std::runtime_error naming the file when an output cannot be written.
QuerySummary run_query(const db::Database& db, const QueryOptions& options);

}  // namespace metawarp::pipeline
