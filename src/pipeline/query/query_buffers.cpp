#include "pipeline/query/query_buffers.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#include "metawarp/host/parallel_for.hpp"

namespace metawarp::pipeline {
namespace {

constexpr std::size_t page_bytes = 4096;

// Writes a byte on every page of [data, data + bytes): each page faulted
// in now, not by the thread that fills it later.
void touch_pages(char* data, std::size_t bytes) {
  for (std::size_t at = 0; at < bytes; at += page_bytes) data[at] = 0;
}

// Bytes per FASTQ record at the start of a plain reads file, from its first
// mebibyte; nothing for stdin, compressed or FASTA input, or a file that
// cannot be read (the query reports that). Only a regular file is read: the
// bytes read from a pipe (`<(zcat reads.fq.gz)`) would be gone for the query.
std::optional<double> fastq_record_bytes(const std::string& path) {
  std::error_code error;
  if (path.empty() || path == "-" || !std::filesystem::is_regular_file(path, error) || error)
    return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  std::string head(std::size_t(1) << 20, '\0');
  in.read(head.data(), std::streamsize(head.size()));
  head.resize(std::size_t(in.gcount()));
  if (head.empty() || head[0] != '@') return std::nullopt;  // compressed input starts otherwise
  const auto lines = std::count(head.begin(), head.end(), '\n');
  if (lines < 8) return std::nullopt;
  const std::size_t end = head.rfind('\n') + 1;
  return double(end) / (double(lines) / 4);
}

}  // namespace

QueryBuffers::QueryBuffers() = default;
QueryBuffers::~QueryBuffers() = default;

std::size_t batches_in_flight(unsigned threads) { return 2 * std::size_t(threads) + 2; }

std::deque<Batch>& QueryBuffers::batches(std::size_t count) {
  if (batches_.size() < count) batches_.resize(count);
  return batches_;
}

std::vector<ParsedBatch>& QueryBuffers::parsed(std::size_t workers) {
  if (parsed_.size() < workers) parsed_.resize(workers);
  return parsed_;
}

namespace {

// What a batch of a query with these options holds: its reads, and the bytes
// of its first file's block (0: not known).
struct BatchShape {
  std::size_t reads = 0;
  std::size_t block_bytes = 0;
};

BatchShape batch_shape(const QueryOptions& o) {
  const unsigned threads = o.threads == 0 ? 1 : o.threads;
  const std::size_t records_per_read = o.interleaved ? 2 : 1;
  // A batch holds batch_size reads, or fewer where the byte limit cuts it
  // first: without a measured record size, as many as short reads of
  // `short_record_bytes` would give.
  constexpr double short_record_bytes = 256;  // a 2 x 100 bp FASTQ record, about
  const std::optional<double> record =
      o.reads.empty() ? std::nullopt : fastq_record_bytes(o.reads[0]);
  std::error_code error;
  const std::uintmax_t size =
      record ? std::filesystem::file_size(o.reads[0], error) : std::uintmax_t(0);
  const double limit = double(batch_byte_limit(o, error ? 0 : size, false, threads));
  const double reads_in_limit =
      limit / (record.value_or(short_record_bytes) * double(records_per_read)) + 2;
  BatchShape shape;
  shape.reads = std::size_t(std::min(double(o.batch_size), reads_in_limit));
  // The block at the size the cutter will ask for (a little more: its own
  // estimate grows by 5 % and a record), so it reserves nothing more.
  shape.block_bytes =
      record ? std::size_t(double(shape.reads * records_per_read) * *record * 1.1 + 65536) : 0;
  return shape;
}

}  // namespace

std::size_t expected_batch_bytes(const QueryOptions& options) {
  return batch_shape(options).block_bytes;
}

void QueryBuffers::prepare(const QueryOptions& o) {
  const unsigned threads = o.threads == 0 ? 1 : o.threads;
  const bool paired = o.reads.size() == 2 || o.interleaved;
  std::deque<Batch>& in_flight = batches(batches_in_flight(threads));
  std::vector<ParsedBatch>& workers = parsed(threads);
  const BatchShape shape = batch_shape(o);
  const std::size_t reads = shape.reads, block_bytes = shape.block_bytes;
  const std::size_t jobs = in_flight.size() + workers.size();
  host::parallel_for(jobs, std::min(threads, 4u), [&](std::size_t job) {
    if (job < in_flight.size()) {
      io::ReadBlocks& blocks = in_flight[job].blocks;
      for (io::RecordBlock* block : {&blocks.first, &blocks.second}) {
        if (block == &blocks.second && o.reads.size() != 2) break;
        if (block_bytes == 0 || block->bytes.capacity() >= block_bytes) continue;
        block->bytes.reserve(block_bytes);
        touch_pages(block->bytes.data(), block_bytes);
      }
      return;
    }
    ParsedBatch& parsed = workers[job - in_flight.size()];
    // Value-initialised: every page written.
    if (parsed.records.mates1.size() < reads + 1) parsed.records.mates1.resize(reads + 1);
    if (paired && parsed.records.mates2.size() < reads + 1) parsed.records.mates2.resize(reads + 1);
    if (parsed.reads.size() < reads) parsed.reads.resize(reads);
    if (parsed.results.size() < reads) parsed.results.resize(reads);
  });
}

}  // namespace metawarp::pipeline
