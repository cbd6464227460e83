#include "io/cut/read_block_cutter.hpp"

#include <limits>
#include <stdexcept>

namespace metawarp::io {
namespace {

ReadLayout layout_of(std::size_t files, bool interleaved) {
  if (files == 0 || files > 2) throw std::invalid_argument("reads: one file, or two for paired mates");
  if (files == 2 && interleaved)
    throw std::invalid_argument("reads: interleaved pairs come in one file, not two");
  if (files == 2) return ReadLayout::two_files;
  return interleaved ? ReadLayout::interleaved : ReadLayout::single;
}

// Checks the number of paths before opening any.
std::vector<RecordBlockSplitter> open_inputs(const std::vector<std::string>& paths, bool interleaved) {
  layout_of(paths.size(), interleaved);
  std::vector<RecordBlockSplitter> inputs;
  for (const std::string& path : paths) inputs.emplace_back(path);
  return inputs;
}

std::size_t saturating_double(std::size_t count) {
  return count > std::numeric_limits<std::size_t>::max() / 2 ? std::numeric_limits<std::size_t>::max()
                                                              : 2 * count;
}

}  // namespace

ReadBlockCutter::ReadBlockCutter(const std::vector<std::string>& paths, bool interleaved)
    : ReadBlockCutter(open_inputs(paths, interleaved), interleaved) {}

ReadBlockCutter::ReadBlockCutter(std::vector<RecordBlockSplitter> inputs, bool interleaved)
    : layout_(layout_of(inputs.size(), interleaved)), first_(std::move(inputs[0])) {
  if (layout_ == ReadLayout::two_files) second_.emplace(std::move(inputs[1]));
}

bool ReadBlockCutter::cut_first(ReadBlocks& blocks, std::size_t max_reads, std::size_t max_bytes) {
  if (first_done_) return false;
  RecordBlock& first = blocks.first;
  if (layout_ == ReadLayout::interleaved) {
    first_.next_block(first, saturating_double(max_reads), max_bytes, RecordBlockSplitter::RecordCount::even);
  } else {
    first_.next_block(first, max_reads, max_bytes);
  }
  // A batch that surely ends in an error is the last one cut.
  first_done_ = first.ends_input_early() || first.format == Format::unknown;
  if (layout_ != ReadLayout::two_files) {
    first_done_ = first_done_ || first_.exhausted();
    return !first.empty();
  }
  // Once mates 1 have ended, one more batch: a record left in R2 is a count
  // mismatch (or its own parse error), so cut_second() still looks.
  first_done_ = first_done_ || first.empty();
  return true;
}

bool ReadBlockCutter::cut_second(ReadBlocks& blocks) {
  if (layout_ != ReadLayout::two_files) return true;
  if (blocks.first.empty()) {
    second_->next_block(blocks.second, 1);
    return !blocks.second.empty();
  }
  second_->next_block(blocks.second, blocks.first.records);
  return true;
}

bool ReadBlockCutter::next(ReadBlocks& blocks, std::size_t max_reads, std::size_t max_bytes) {
  if (done_ || !cut_first(blocks, max_reads, max_bytes) || !cut_second(blocks)) {
    done_ = true;
    return false;
  }
  if (layout_ == ReadLayout::two_files) {
    // Mates 2 ending early (or failing) end the input as well.
    done_ = blocks.second.ends_input_early() || blocks.second.records < blocks.first.records;
  }
  return true;
}

}  // namespace metawarp::io
