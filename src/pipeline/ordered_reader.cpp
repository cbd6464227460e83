#include "pipeline/ordered_reader.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

namespace metawarp::pipeline {
namespace {

struct FileQueue {
  std::deque<io::SequenceRecord> records;
  std::size_t bytes = 0;
  bool finished = false;
};

std::size_t record_bytes(const io::SequenceRecord& r) {
  return r.sequence.size() + r.quality.size() + r.header.size();
}

class OrderedReads {
 public:
  OrderedReads(const std::vector<std::string>& files, unsigned readers, ReadCounters& counters,
               std::size_t buffer_bytes)
      : files_(files), queues_(files.size()), counters_(counters), buffer_bytes_(buffer_bytes),
        lookahead_(std::max(1u, readers)) {}

  void run(const std::function<void(io::SequenceRecord&, std::size_t)>& consume) {
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < std::min<std::size_t>(lookahead_, files_.size()); ++t)
      pool.emplace_back([this] { read_files(); });
    try {
      for (std::size_t f = 0; f < files_.size(); ++f) {
        io::SequenceRecord record;
        while (pop(f, record)) consume(record, f);
        finish_file(f);
      }
    } catch (...) {
      fail(std::current_exception());
    }
    for (auto& t : pool) t.join();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  // Reader thread: claims files in order, never more than `lookahead_` ahead
  // of the file being consumed.
  void read_files() {
    for (;;) {
      std::size_t f;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return failed_ || next_file_ < consumed_files_ + lookahead_; });
        if (failed_ || next_file_ >= files_.size()) return;
        f = next_file_++;
      }
      try {
        read_file(f);
      } catch (...) {
        fail(std::current_exception());
        return;
      }
    }
  }

  void read_file(std::size_t f) {
    io::SequenceReader reader(files_[f]);
    std::uint64_t reported = 0;
    io::SequenceRecord record;
    while (reader.next(record)) {
      const std::uint64_t consumed = reader.bytes_consumed();
      counters_.bytes.fetch_add(consumed - reported, std::memory_order_relaxed);
      reported = consumed;
      const std::size_t size = record_bytes(record);
      std::unique_lock lock(mutex_);
      FileQueue& q = queues_[f];
      // A record larger than the budget still goes through, alone.
      changed_.wait(lock, [&] { return failed_ || q.bytes == 0 || q.bytes + size <= buffer_bytes_; });
      if (failed_) return;
      q.bytes += size;
      q.records.push_back(std::move(record));
      record = io::SequenceRecord{};
      changed_.notify_all();
    }
    std::lock_guard lock(mutex_);
    queues_[f].finished = true;
    counters_.files_done.fetch_add(1, std::memory_order_relaxed);
    changed_.notify_all();
  }

  bool pop(std::size_t f, io::SequenceRecord& out) {
    std::unique_lock lock(mutex_);
    FileQueue& q = queues_[f];
    changed_.wait(lock, [&] { return failed_ || !q.records.empty() || q.finished; });
    if (failed_) throw Stopped{};
    if (q.records.empty()) return false;
    out = std::move(q.records.front());
    q.records.pop_front();
    q.bytes -= record_bytes(out);
    counters_.records.fetch_add(1, std::memory_order_relaxed);
    changed_.notify_all();
    return true;
  }

  void finish_file(std::size_t f) {
    std::lock_guard lock(mutex_);
    queues_[f] = FileQueue{};
    consumed_files_ = f + 1;
    changed_.notify_all();
  }

  // Marker thrown into the consumer loop when a reader failed.
  struct Stopped {};

  void fail(std::exception_ptr e) {
    std::lock_guard lock(mutex_);
    if (!failed_) {
      failed_ = true;
      try {
        std::rethrow_exception(e);
      } catch (const Stopped&) {
        // the reader's error is recorded already
      } catch (...) {
        error_ = e;
      }
    }
    changed_.notify_all();
  }

  const std::vector<std::string>& files_;
  std::vector<FileQueue> queues_;
  ReadCounters& counters_;
  const std::size_t buffer_bytes_;
  const std::size_t lookahead_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::size_t next_file_ = 0;
  std::size_t consumed_files_ = 0;
  bool failed_ = false;
  std::exception_ptr error_;
};

}  // namespace

void for_each_record_in_order(
    const std::vector<std::string>& files, unsigned readers, ReadCounters& counters,
    const std::function<void(io::SequenceRecord&, std::size_t file_index)>& consume,
    std::size_t buffer_bytes) {
  OrderedReads(files, readers, counters, buffer_bytes).run(consume);
}

}  // namespace metawarp::pipeline
