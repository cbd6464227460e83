#include "pipeline/build/ordered_reader.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>

#include "metawarp/host/channel.hpp"
#include "metawarp/host/thread_group.hpp"

namespace metawarp::pipeline {
namespace {

std::size_t record_bytes(const io::SequenceRecord& r) {
  return r.sequence.size() + r.quality.size() + r.header.size();
}

// One file to read: its index and the channel its records go through,
// bounded in bytes.
struct FileJob {
  std::size_t file = 0;
  std::shared_ptr<host::Channel<io::SequenceRecord>> records;
};

// The bases a record's string is given before it is parsed: a reference's
// sequence grown line by line from nothing is copied again at every doubling
// and its fresh pages faulted in each time (one thread parsed 4 Mbp genomes
// at 0.78 GB/s so, 1.06 GB/s reserved). The first record of a file is expected to fill the file (its size
// on disk, at most `first_reserve_cap`: a gzip file's bases are more, a
// file of many records' fewer, and unused capacity is only address space);
// every later one as long as the one before.
constexpr std::uint64_t first_reserve_cap = std::uint64_t(64) << 20;

std::size_t first_record_reserve(const std::string& path) {
  std::error_code error;
  const std::uint64_t size = std::filesystem::file_size(path, error);
  return error ? 0 : std::size_t(std::min(size, first_reserve_cap));
}

void read_file(const std::string& path, host::Channel<io::SequenceRecord>& out,
               ReadCounters& counters) {
  io::SequenceReader reader(path);
  std::uint64_t reported = 0;
  io::SequenceRecord record;
  record.sequence.reserve(first_record_reserve(path));
  while (reader.next(record)) {
    const std::uint64_t consumed = reader.bytes_consumed();
    counters.bytes.fetch_add(consumed - reported, std::memory_order_relaxed);
    reported = consumed;
    const std::size_t size = record_bytes(record);
    const std::size_t length = record.sequence.size();
    if (!out.push(std::move(record), size)) return;  // stopped: the error is elsewhere
    record = io::SequenceRecord{};
    record.sequence.reserve(length);
  }
  counters.files_done.fetch_add(1, std::memory_order_relaxed);
  out.close();
}

}  // namespace

// Reader threads take the files in order from `jobs`; the consumer, on the
// calling thread, drains the file channels in order and releases the job of
// file f + lookahead once file f is done, so reading never runs more than
// `lookahead` files ahead of the consumer.
void for_each_record_in_order(
    const std::vector<std::string>& files, unsigned readers, ReadCounters& counters,
    const std::function<void(io::SequenceRecord&, std::size_t file_index)>& consume,
    std::size_t buffer_bytes) {
  const std::size_t lookahead = std::min<std::size_t>(std::max(1u, readers), files.size());
  host::Channel<FileJob> jobs(files.size() + 1);
  std::mutex open_mutex;     // a failing reader cancels the open jobs' channels
  std::deque<FileJob> open;  // the jobs released and not consumed, in file order
  std::size_t released = 0;
  auto release_next = [&] {
    if (released == files.size()) {
      jobs.close();
      return;
    }
    FileJob job{released++, std::make_shared<host::Channel<io::SequenceRecord>>(buffer_bytes)};
    {
      std::lock_guard lock(open_mutex);
      open.push_back(job);
    }
    jobs.push(std::move(job));
  };

  host::ThreadGroup group;
  group.on_stop([&] {
    jobs.cancel();
    std::lock_guard lock(open_mutex);
    for (auto& job : open) job.records->cancel();
  });
  for (std::size_t i = 0; i < lookahead; ++i) release_next();
  for (std::size_t t = 0; t < lookahead; ++t)
    group.spawn([&] {
      FileJob job;
      while (jobs.pop(job)) read_file(files[job.file], *job.records, counters);
    });
  try {
    for (std::size_t f = 0; f < files.size(); ++f) {
      FileJob job;
      {
        std::lock_guard lock(open_mutex);
        job = open.front();
      }
      io::SequenceRecord record;
      while (true) {
        const auto asked = std::chrono::steady_clock::now();
        const bool got = job.records->pop(record);
        counters.consumer_wait_ns.fetch_add(
            std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::steady_clock::now() - asked)
                              .count()),
            std::memory_order_relaxed);
        if (!got) break;
        counters.records.fetch_add(1, std::memory_order_relaxed);
        consume(record, f);
      }
      if (job.records->cancelled()) break;  // a reader failed: join() says why
      {
        std::lock_guard lock(open_mutex);
        open.pop_front();
      }
      release_next();
    }
  } catch (...) {
    group.fail(std::current_exception());
  }
  group.join();
}

}  // namespace metawarp::pipeline
