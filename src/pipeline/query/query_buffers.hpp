#pragma once
// What the query's threads fill batch by batch (the batches' raw blocks and
// outputs, each worker's parsed records and results), kept from sample to
// sample of a run and, before the first, made and touched while the
// database loads: memory a thread first touches costs page faults (the
// kernel zeroes each page), which made the first sample of a process run at
// a third of the speed of the next ones (docs/benchmarks.md, issue 13).
// Nothing here changes a result: the buffers only keep their capacity.
#include <cstddef>
#include <deque>
#include <memory>
#include <vector>

#include "pipeline/query/query.hpp"
#include "pipeline/query/query_batch.hpp"

namespace metawarp::pipeline {

class QueryBuffers {
 public:
  QueryBuffers();
  ~QueryBuffers();
  QueryBuffers(const QueryBuffers&) = delete;
  QueryBuffers& operator=(const QueryBuffers&) = delete;

  // Makes and touches what a query with these options will use: the
  // workers' records, read views and results for a whole batch, and, for a
  // plain reads file, each batch's blocks at the size its first records
  // suggest. Any thread, before the query; a failure (say, an unreadable
  // file) is left for the query to report, so this never throws but for
  // memory.
  void prepare(const QueryOptions& options);

  // The batches in flight (at least `count`; growing keeps the batches
  // there in place) and the workers' parses (at least `workers`), for run_query.
  std::deque<Batch>& batches(std::size_t count);
  std::vector<ParsedBatch>& parsed(std::size_t workers);

 private:
  std::deque<Batch> batches_;
  std::vector<ParsedBatch> parsed_;
};

// Batches in flight for `threads` workers: enough to keep every worker busy.
std::size_t batches_in_flight(unsigned threads);

// The bytes of the first reads file one batch of this query will hold, from
// the size of its first records (what prepare() reserves per block); 0 when
// that cannot be known before reading (compressed input, a pipe, FASTA).
std::size_t expected_batch_bytes(const QueryOptions& options);

}  // namespace metawarp::pipeline
