// The query's progress line and the number formats it uses
// (pipeline/query/query_progress.hpp, pipeline/progress.hpp).
#include <string>

#include "catch.hpp"
#include "pipeline/query/query_progress.hpp"

using namespace metawarp::pipeline;

TEST_CASE("progress numbers: three digits at most, then a unit") {
  CHECK(format_count(0) == "0");
  CHECK(format_count(999) == "999");
  CHECK(format_count(1250) == "1.25 k");
  CHECK(format_count(48000) == "48.0 k");
  CHECK(format_count(480000) == "480 k");
  CHECK(format_count(2.5e6) == "2.50 M");
  CHECK(format_bytes(512) == "512 B");
  CHECK(format_bytes(1'100'000) == "1.10 MB");
  CHECK(format_bytes(14'800'000'000) == "14.8 GB");
  CHECK(format_duration(0.4) == "0 s");
  CHECK(format_duration(59) == "59 s");
  CHECK(format_duration(245) == "4 min 05 s");
  CHECK(format_duration(7620) == "2 h 07 min");
  CHECK(format_seconds(0.854) == "0.85 s");
}

TEST_CASE("the progress line: share and ETA only when the input's size is known") {
  QueryProgressState state;
  state.reads = 1'250'000;
  state.seconds = 2.5;
  state.input_bytes = 400;
  CHECK(query_progress_line("query", true, "standard input", state) ==
        "query: 1.25 M pairs, 500 k pairs/s");
  state.input_size = 1000;  // 40 % in 2.5 s: 3.75 s to go
  CHECK(query_progress_line("query: sample 2/5 gut_A", false, "r1.fq.gz", state) ==
        "query: sample 2/5 gut_A: 1.25 M reads, 500 k reads/s, 40% of r1.fq.gz, ETA 4 s");
  state.input_bytes = 1000;  // all read, the last batches still being classified
  CHECK(query_progress_line("query", true, "r1.fq", state) ==
        "query: 1.25 M pairs, 500 k pairs/s, 100% of r1.fq");
  state.input_bytes = 0;  // nothing read yet: too early for an ETA
  state.reads = 0;
  CHECK(query_progress_line("query", true, "r1.fq", state) == "query: 0 pairs, 0 pairs/s, 0% of r1.fq");
}
