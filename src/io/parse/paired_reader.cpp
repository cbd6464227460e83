#include "io/parse/paired_reader.hpp"

#include <utility>

namespace metawarp::io {
namespace {

// Pairs cut and parsed at a time: enough to amortise the per-block work.
constexpr std::size_t pairs_per_batch = 1024;
constexpr std::size_t max_batch_bytes = std::size_t{16} << 20;

}  // namespace

PairedReader::PairedReader(const std::string& path1, const std::string& path2)
    : cutter_({path1, path2}, false) {}

PairedReader::PairedReader(const std::string& interleaved_path)
    : cutter_({interleaved_path}, true) {}

bool PairedReader::next(SequenceRecord& mate1, SequenceRecord& mate2) {
  while (next_ == parsed_.count) {
    if (parsed_.error) std::rethrow_exception(parsed_.error);
    if (!cutter_.next(blocks_, pairs_per_batch, max_batch_bytes)) return false;
    parsed_ = parse_read_blocks(cutter_.layout(), blocks_, mates1_, mates2_);
    next_ = 0;
  }
  std::swap(mate1, mates1_[next_]);
  std::swap(mate2, mates2_[next_]);
  ++next_;
  return true;
}

}  // namespace metawarp::io
