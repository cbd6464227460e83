#pragma once
// Catch2 checks that a GPU engine's result of a read is the CPU
// classifier's: every field a result has (windows, hits, candidates, the
// matched bases, the assignment, the evidence runs).
#include <cstdint>

#include "catch.hpp"
#include "pipeline/query/classifier.hpp"

namespace metawarp::test {

inline void require_same(const pipeline::ReadResult& cpu, const pipeline::ReadResult& gpu) {
  REQUIRE(gpu.windows == cpu.windows);
  REQUIRE(gpu.hits == cpu.hits);
  REQUIRE(gpu.candidate_count == cpu.candidate_count);
  for (std::uint32_t i = 0; i < cpu.candidate_count; ++i) {
    CAPTURE(i);
    REQUIRE(gpu.top[i].target == cpu.top[i].target);
    REQUIRE(gpu.top[i].first_window == cpu.top[i].first_window);
    REQUIRE(gpu.top[i].last_window == cpu.top[i].last_window);
    REQUIRE(gpu.top[i].hits == cpu.top[i].hits);
  }
  // The matched-bases rule's numbers (the device's union of positions).
  REQUIRE(gpu.match.matched == cpu.match.matched);
  REQUIRE(gpu.match.needed == cpu.match.needed);
  REQUIRE(gpu.assignment.taxid == cpu.assignment.taxid);
  REQUIRE(gpu.assignment.best_hits == cpu.assignment.best_hits);
  REQUIRE(gpu.assignment.candidates_used == cpu.assignment.candidates_used);
  // The evidence (with --confidence, --kraken-output): the same runs.
  REQUIRE(gpu.mate1_runs == cpu.mate1_runs);
  REQUIRE(gpu.evidence.size() == cpu.evidence.size());
  for (std::size_t i = 0; i < cpu.evidence.size(); ++i) {
    CAPTURE(i);
    REQUIRE(gpu.evidence[i].taxon == cpu.evidence[i].taxon);
    REQUIRE(gpu.evidence[i].count == cpu.evidence[i].count);
  }
}

}  // namespace metawarp::test
