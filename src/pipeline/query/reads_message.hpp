#pragma once
// A group of reads as the MPI engine sends them to the other ranks
// (pipeline/mpi/mpi_engine.cpp, the GPUs' path): plain data, no MPI, so
// that the packing is tested without it (tests/query/test_reads_message.cpp).
#include <cstdint>
#include <span>
#include <vector>

#include "metawarp/host/large_vector.hpp"
#include "pipeline/query/query.hpp"

namespace metawarp::pipeline {

// A group's reads as they travel to the other ranks: each batch's read
// count, each read's two mates' lengths, and the bases, read after read
// (mate 1, then mate 2). The same reads in the same batches: so every rank
// cuts them into the same chunks (PartReadDecider::start). The other ranks
// only sketch the bases, which sees A, C, G and T in either case alike and
// every other base as invalid (sketch::encode_base): so the bases travel as
// 2 bits each (encode_base's codes; a batch's from a byte of its own) and
// the positions of the invalid ones, which arrive as N.
struct ReadsMessage {
  std::vector<std::uint64_t> batch_reads;
  std::vector<std::uint32_t> lengths;  // 2 a read
  host::LargeVector<std::uint8_t> packed;
  std::vector<std::uint64_t> invalid;  // sorted positions in the group's bases
  // The receivers': the bases and, per batch, the reads' views of them.
  host::LargeVector<char> bases;
  std::vector<std::vector<ReadView>> views;
  std::uint64_t bytes() const {
    return batch_reads.size() * sizeof(std::uint64_t) + lengths.size() * sizeof(std::uint32_t) +
           packed.size() + invalid.size() * sizeof(std::uint64_t);
  }
};

// Rank 0: `reads` (batch by batch) into `out`, on `threads`. Throws
// std::runtime_error for a mate of 2^32 bases or more.
void pack_message(std::span<const std::span<const ReadView>> reads, ReadsMessage& out,
                  unsigned threads);

// The other ranks: `message`'s bases and views made from what was received
// (batch_reads, lengths, packed, invalid), on `threads`. Each read's bases
// are A, C, G, T and N, which sketch as the reads sent do.
void unpack_message(ReadsMessage& message, unsigned threads);

}  // namespace metawarp::pipeline
