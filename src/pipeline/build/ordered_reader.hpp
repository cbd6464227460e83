#pragma once
// Reads many sequence files in parallel but hands their records to one
// consumer in (file, record) order, so target ids never depend on timing.
// Memory stays bounded: each file being read ahead buffers at most
// `buffer_bytes` of records before its reader waits for the consumer.
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "io/parse/sequence_reader.hpp"

namespace metawarp::pipeline {

struct ReadCounters {
  std::atomic<std::uint64_t> bytes{0};       // uncompressed input bytes parsed
  std::atomic<std::uint64_t> records{0};
  std::atomic<std::uint64_t> files_done{0};
  // The consumer waiting for the readers' next record (ns): the share of
  // the consumer's time that the parse, not the consumer, decided.
  std::atomic<std::uint64_t> consumer_wait_ns{0};
};

// Calls consume(record, file_index) for every record, in order, on the calling
// thread. `readers` files are read ahead at once. The first error (a reader's
// InputError or an exception from consume) stops everything and is rethrown.
void for_each_record_in_order(
    const std::vector<std::string>& files, unsigned readers, ReadCounters& counters,
    const std::function<void(io::SequenceRecord&, std::size_t file_index)>& consume,
    std::size_t buffer_bytes = std::size_t(256) << 20);

}  // namespace metawarp::pipeline
