// The MPI engine's reads message (pipeline/query/reads_message.hpp): packed
// on rank 0 and unpacked on another rank, every read has its lengths and,
// base by base, what the sketch sees of it (sketch::encode_base: A, C, G, T
// in either case, anything else invalid), for reads of every length modulo 4,
// empty mates, single-end batches, empty batches and many threads.
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "metawarp/sketch/encoding.hpp"
#include "pipeline/query/reads_message.hpp"

using namespace metawarp;

namespace {

std::string random_mate(std::mt19937_64& rng, std::size_t length) {
  static const char alphabet[] = "ACGTACGTACGTacgtNnRY-.*";
  std::uniform_int_distribution<std::size_t> pick(0, sizeof(alphabet) - 2);
  std::string mate(length, 'A');
  for (char& c : mate) c = alphabet[pick(rng)];
  return mate;
}

// What rank 0 sends of `sent`, as another rank receives it.
pipeline::ReadsMessage received(const pipeline::ReadsMessage& sent) {
  pipeline::ReadsMessage got;
  got.batch_reads = sent.batch_reads;
  got.lengths = sent.lengths;
  got.packed = sent.packed;
  got.invalid = sent.invalid;
  return got;
}

}  // namespace

TEST_CASE("reads message: every base as the sketch sees it, every length, after the trip") {
  std::mt19937_64 rng(20261127);
  std::vector<std::string> text;
  std::vector<std::vector<pipeline::ReadView>> batches(5);
  const std::size_t sizes[] = {1, 0, 37, 200, 9};  // reads per batch (one batch empty)
  text.reserve(2 * 300);
  for (std::size_t b = 0; b < batches.size(); ++b)
    for (std::size_t r = 0; r < sizes[b]; ++r) {
      text.push_back(random_mate(rng, (r * 7 + b) % 23));
      // Batch 4 single-end: no mate 2.
      text.push_back(b == 4 ? std::string() : random_mate(rng, (r * 5 + 3 * b) % 19));
      batches[b].push_back({text[text.size() - 2], text.back()});
    }
  const std::vector<std::span<const pipeline::ReadView>> reads(batches.begin(), batches.end());
  for (unsigned threads : {1u, 3u}) {
    CAPTURE(threads);
    pipeline::ReadsMessage sent;
    pipeline::pack_message(reads, sent, threads);
    std::uint64_t bases = 0, invalid = 0;
    for (const auto& batch : batches)
      for (const auto& read : batch)
        for (std::string_view mate : {read.mate1, read.mate2}) {
          bases += mate.size();
          for (char c : mate) invalid += sketch::encode_base(c) == sketch::invalid_base;
        }
    REQUIRE(sent.invalid.size() == invalid);
    REQUIRE(invalid > 0);
    CHECK(sent.packed.size() < bases / 4 + batches.size());  // 2 bits a base
    pipeline::ReadsMessage got = received(sent);
    pipeline::unpack_message(got, threads);
    REQUIRE(got.views.size() == batches.size());
    for (std::size_t b = 0; b < batches.size(); ++b) {
      REQUIRE(got.views[b].size() == batches[b].size());
      for (std::size_t r = 0; r < batches[b].size(); ++r) {
        const pipeline::ReadView& a = batches[b][r];
        const pipeline::ReadView& g = got.views[b][r];
        CAPTURE(b, r);
        REQUIRE(g.mate1.size() == a.mate1.size());
        REQUIRE(g.mate2.size() == a.mate2.size());
        for (std::size_t i = 0; i < a.mate1.size(); ++i)
          REQUIRE(sketch::encode_base(g.mate1[i]) == sketch::encode_base(a.mate1[i]));
        for (std::size_t i = 0; i < a.mate2.size(); ++i)
          REQUIRE(sketch::encode_base(g.mate2[i]) == sketch::encode_base(a.mate2[i]));
      }
    }
  }
}

TEST_CASE("reads message: a group of no reads") {
  pipeline::ReadsMessage sent;
  const std::vector<std::span<const pipeline::ReadView>> none(2);
  pipeline::pack_message(none, sent, 2);
  CHECK(sent.packed.empty());
  pipeline::ReadsMessage got = received(sent);
  pipeline::unpack_message(got, 2);
  REQUIRE(got.views.size() == 2);
  CHECK(got.views[0].empty());
  CHECK(got.views[1].empty());
}
