#include "pipeline/query/read_outputs.hpp"

#include <zlib.h>

#include <algorithm>
#include <stdexcept>


namespace metawarp::pipeline {
namespace {

constexpr char mate_mark = '#';
// Text gathered before it is compressed or written: large enough that the
// writes are few, small next to a batch.
constexpr std::size_t flush_bytes = std::size_t(1) << 20;
// gzip level 1: the writer thread compresses, and it must keep up with the
// classification; the ratio on reads is close to the default level's.
constexpr int gzip_level = 1;

bool ends_with(std::string_view text, std::string_view end) {
  return text.size() >= end.size() && text.substr(text.size() - end.size()) == end;
}

// A blank line, as SequenceReader skips it: empty, or a lone '\r'.
bool blank(std::string_view line) { return line.empty() || line == "\r"; }

// The line starting at `pos` (without its '\n') and the position after it.
std::string_view line_at(std::string_view text, std::size_t pos, std::size_t& next) {
  const std::size_t end = text.find('\n', pos);
  next = end == std::string_view::npos ? text.size() : end + 1;
  return text.substr(pos, (end == std::string_view::npos ? text.size() : end) - pos);
}

}  // namespace

std::vector<std::string> mate_paths(const std::string& path, bool paired,
                                    const std::string& option, bool kraken2) {
  if (path.empty()) return {};
  const std::size_t mark = path.find(mate_mark);
  if (!paired) {
    if (mark != std::string::npos && !kraken2)
      throw std::invalid_argument(option + " '" + path +
                                  "': '#' stands for the mate number of pairs, and these reads "
                                  "are single-end");
    return {path};
  }
  if (mark == std::string::npos)
    throw std::invalid_argument(option + " '" + path +
                                "': pairs need a '#' in the path, which becomes _1 and _2 (for "
                                "example 'out#.fq' names out_1.fq and out_2.fq)");
  if (path.find(mate_mark, mark + 1) != std::string::npos)
    throw std::invalid_argument(option + " '" + path + "': more than one '#'");
  std::string first = path, second = path;
  first.replace(mark, 1, "_1");
  second.replace(mark, 1, "_2");
  return {first, second};
}

void record_texts(const io::RecordBlock& block, std::vector<std::string_view>& records) {
  const std::string_view text = block.bytes.view();
  std::size_t pos = 0, next = 0;
  const bool fastq = block.format == io::Format::fastq;
  while (pos < text.size()) {
    if (blank(line_at(text, pos, next))) {
      pos = next;
      continue;
    }
    const std::size_t start = pos;
    std::size_t end = next;  // after the header line
    pos = next;
    if (fastq) {
      for (int line = 0; line < 3 && pos < text.size(); ++line) {
        line_at(text, pos, next);
        pos = end = next;
      }
    } else {
      while (pos < text.size()) {
        const std::string_view line = line_at(text, pos, next);
        if (!line.empty() && line[0] == '>') break;
        if (!blank(line)) end = next;  // blank lines before the next header are left out
        pos = next;
      }
    }
    records.push_back(text.substr(start, end - start));
  }
}

struct SequenceOutput::Gzip {
  z_stream stream{};
  std::string buffer;
  Gzip() {
    // windowBits 15 + 16: a gzip header and trailer around the deflate data.
    if (deflateInit2(&stream, gzip_level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      throw std::runtime_error("cannot start gzip compression (zlib)");
    buffer.resize(std::size_t(256) << 10);
  }
  ~Gzip() { deflateEnd(&stream); }
};

SequenceOutput::SequenceOutput(const std::string& path)
    : file_(std::make_unique<OutputFile>(path)) {
  if (ends_with(path, ".gz")) gzip_ = std::make_unique<Gzip>();
}
SequenceOutput::~SequenceOutput() = default;
SequenceOutput::SequenceOutput(SequenceOutput&&) noexcept = default;
SequenceOutput& SequenceOutput::operator=(SequenceOutput&&) noexcept = default;

void append_record(std::string& out, std::string_view record, std::string_view header_suffix) {
  if (record.empty()) return;
  std::size_t header_end = std::min(record.find('\n'), record.size());
  if (header_end > 0 && record[header_end - 1] == '\r') --header_end;
  out += record.substr(0, header_end);
  out += header_suffix;
  out += record.substr(header_end);
  if (record.back() != '\n') out += '\n';
}

std::string kraken2_header_tag(taxonomy::taxid_t taxid) {
  return " kraken:taxid|" + std::to_string(taxid);
}

void SequenceOutput::write(std::string_view text) {
  if (!enabled()) return;
  pending_ += text;
  if (pending_.size() >= flush_bytes) flush(false);
}

void SequenceOutput::flush(bool finish) {
  if (!gzip_) {
    file_->write(pending_);
    pending_.clear();
    return;
  }
  z_stream& z = gzip_->stream;
  z.next_in = reinterpret_cast<Bytef*>(pending_.data());
  z.avail_in = static_cast<uInt>(pending_.size());
  int status = Z_OK;
  do {
    z.next_out = reinterpret_cast<Bytef*>(gzip_->buffer.data());
    z.avail_out = static_cast<uInt>(gzip_->buffer.size());
    status = deflate(&z, finish ? Z_FINISH : Z_NO_FLUSH);
    if (status == Z_STREAM_ERROR) throw std::runtime_error("gzip compression failed (zlib)");
    file_->write({gzip_->buffer.data(), gzip_->buffer.size() - z.avail_out});
  } while (z.avail_out == 0 || (finish && status != Z_STREAM_END));
  pending_.clear();
}

void SequenceOutput::close() {
  if (!enabled()) return;
  flush(true);
  file_->close();
}

ReadOutputs::ReadOutputs(const std::string& classified_path,
                         const std::string& unclassified_path, bool paired, bool kraken2) {
  const auto open = [&](std::array<SequenceOutput, 2>& files, const std::string& path,
                        const std::string& option) {
    const std::vector<std::string> paths = mate_paths(path, paired, option, kraken2);
    for (std::size_t m = 0; m < paths.size(); ++m) files[m] = SequenceOutput(paths[m]);
  };
  open(classified, classified_path, "--classified-out");
  open(unclassified, unclassified_path, "--unclassified-out");
}

void ReadOutputs::close() {
  for (auto* files : {&classified, &unclassified})
    for (SequenceOutput& file : *files) file.close();
}

}  // namespace metawarp::pipeline
