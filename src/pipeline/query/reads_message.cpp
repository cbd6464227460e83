#include "pipeline/query/reads_message.hpp"

#include <array>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include "metawarp/host/parallel_for.hpp"
#include "metawarp/sketch/encoding.hpp"
#include "metawarp/sketch/host.hpp"

namespace metawarp::pipeline {

namespace {

// Where each batch's bases start among the group's, and its packed bytes
// among the message's (batches + 1 entries each).
struct BatchPlaces {
  std::vector<std::uint64_t> base, byte;
};
BatchPlaces batch_places(std::span<const std::uint64_t> batch_bases) {
  BatchPlaces at{std::vector<std::uint64_t>(batch_bases.size() + 1, 0),
                 std::vector<std::uint64_t>(batch_bases.size() + 1, 0)};
  for (std::size_t b = 0; b < batch_bases.size(); ++b) {
    at.base[b + 1] = at.base[b] + batch_bases[b];
    at.byte[b + 1] = at.byte[b] + (batch_bases[b] + 3) / 4;
  }
  return at;
}

// Each batch's bases, from its reads' lengths.
std::vector<std::uint64_t> batch_bases(const ReadsMessage& message) {
  std::vector<std::uint64_t> bases(message.batch_reads.size(), 0);
  const std::uint32_t* length = message.lengths.data();
  for (std::size_t b = 0; b < bases.size(); ++b)
    for (std::uint64_t r = 0; r < message.batch_reads[b]; ++r, length += 2)
      bases[b] += std::uint64_t(length[0]) + length[1];
  return bases;
}

}  // namespace

void pack_message(std::span<const std::span<const ReadView>> reads, ReadsMessage& out,
                  unsigned threads) {
  const std::size_t batches = reads.size();
  std::vector<std::uint64_t> first_read(batches + 1, 0);
  out.batch_reads.resize(batches);
  for (std::size_t b = 0; b < batches; ++b) {
    out.batch_reads[b] = reads[b].size();
    first_read[b + 1] = first_read[b] + reads[b].size();
  }
  out.lengths.resize(2 * first_read.back());
  for (std::size_t b = 0; b < batches; ++b) {
    std::uint32_t* length = out.lengths.data() + 2 * first_read[b];
    for (const ReadView& read : reads[b]) {
      if (read.mate1.size() > UINT32_MAX || read.mate2.size() > UINT32_MAX)
        throw std::runtime_error("--mpi: a read of more than 2^32 bases");
      *length++ = std::uint32_t(read.mate1.size());
      *length++ = std::uint32_t(read.mate2.size());
    }
  }
  const BatchPlaces at = batch_places(batch_bases(out));
  out.packed.resize(at.byte.back());
  std::vector<std::vector<std::uint64_t>> invalid(batches);
  const std::uint8_t* code_of = sketch::host_detail::base_table.code;
  host::parallel_for(batches, threads, [&](std::size_t b) {
    std::uint8_t* byte = out.packed.data() + at.byte[b];
    std::uint64_t i = 0;  // the batch's base
    unsigned filled = 0;  // bases in `bits`
    std::uint8_t bits = 0;
    auto put = [&](std::string_view mate) {
      for (const char c : mate) {
        std::uint8_t code = code_of[static_cast<unsigned char>(c)];
        if (code == sketch::invalid_base) {
          invalid[b].push_back(at.base[b] + i);
          code = 0;
        }
        bits |= std::uint8_t(code << (2 * filled));
        ++i;
        if (++filled == 4) {
          *byte++ = bits;
          bits = 0;
          filled = 0;
        }
      }
    };
    for (const ReadView& read : reads[b]) {
      put(read.mate1);
      put(read.mate2);
    }
    if (filled != 0) *byte = bits;
  });
  out.invalid.clear();
  for (const auto& positions : invalid)
    out.invalid.insert(out.invalid.end(), positions.begin(), positions.end());
}

void unpack_message(ReadsMessage& message, unsigned threads) {
  const std::vector<std::uint64_t> bases = batch_bases(message);
  const BatchPlaces at = batch_places(bases);
  message.bases.resize(at.base.back());
  // Each byte's four bases at once.
  static const std::array<std::array<char, 4>, 256> quads = [] {
    std::array<std::array<char, 4>, 256> q{};
    for (unsigned v = 0; v < 256; ++v)
      for (unsigned j = 0; j < 4; ++j) q[v][j] = "ACGT"[(v >> (2 * j)) & 3];
    return q;
  }();
  host::parallel_for(bases.size(), threads, [&](std::size_t b) {
    const std::uint8_t* byte = message.packed.data() + at.byte[b];
    char* base = message.bases.data() + at.base[b];
    const std::uint64_t whole = bases[b] / 4;
    for (std::uint64_t k = 0; k < whole; ++k) std::memcpy(base + 4 * k, quads[byte[k]].data(), 4);
    for (std::uint64_t i = 4 * whole; i < bases[b]; ++i) base[i] = quads[byte[whole]][i % 4];
  });
  for (const std::uint64_t position : message.invalid) message.bases[position] = 'N';
  message.views.resize(message.batch_reads.size());
  const std::uint32_t* length = message.lengths.data();
  for (std::size_t b = 0; b < message.batch_reads.size(); ++b) {
    const char* base = message.bases.data() + at.base[b];
    std::vector<ReadView>& views = message.views[b];
    views.resize(message.batch_reads[b]);
    for (ReadView& read : views) {
      read.mate1 = std::string_view(base, length[0]);
      read.mate2 = std::string_view(base + length[0], length[1]);
      base += length[0] + length[1];
      length += 2;
    }
  }
}

}  // namespace metawarp::pipeline
