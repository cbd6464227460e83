// for_each_record_in_order: records of many files, read in parallel, reach
// the consumer in (file, record) order; the first error stops everything.
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "catch.hpp"
#include "io/parse/sequence_reader.hpp"
#include "pipeline/build/ordered_reader.hpp"
#include "temp_files.hpp"

using namespace metawarp;
using test::TempDir;
using test::write_text;

namespace {

// Built with append: GCC 12 reports a false -Wrestrict for "x" + std::to_string(...).
std::string record_id(int file, int record) {
  std::string id("f");
  id.append(std::to_string(file)).append("r");
  if (record >= 0) id.append(std::to_string(record));
  return id;
}

std::vector<std::string> write_files(const TempDir& dir, int files, int records) {
  std::vector<std::string> paths;
  for (int f = 0; f < files; ++f) {
    std::string text;
    for (int r = 0; r < records; ++r)
      text.append(">").append(record_id(f, r)).append("\n").append(50 + r, 'A').append("\n");
    paths.push_back((dir / (record_id(f, -1) + ".fa")).string());
    write_text(paths.back(), text);
  }
  return paths;
}

}  // namespace

TEST_CASE("ordered reader: (file, record) order for any reader count and buffer size") {
  TempDir dir;
  const auto files = write_files(dir, 7, 40);
  for (unsigned readers : {1u, 3u, 16u}) {
    for (std::size_t buffer : {std::size_t(1), std::size_t(1000), std::size_t(1) << 20}) {
      pipeline::ReadCounters counters;
      std::vector<std::string> ids;
      pipeline::for_each_record_in_order(
          files, readers, counters,
          [&](io::SequenceRecord& r, std::size_t f) {
            CHECK(std::string(r.id()).rfind(record_id(int(f), -1), 0) == 0);
            ids.emplace_back(r.id());
          },
          buffer);
      REQUIRE(ids.size() == 7 * 40);
      for (int f = 0; f < 7; ++f)
        for (int r = 0; r < 40; ++r)
          CHECK(ids[std::size_t(f * 40 + r)] == record_id(f, r));
      CHECK(counters.records == 7 * 40);
      CHECK(counters.files_done == 7);
    }
  }
}

TEST_CASE("ordered reader: a bad file's error comes back, the other readers stop") {
  TempDir dir;
  auto files = write_files(dir, 6, 30);
  write_text(files[3], ">ok\nACGT\nnot a header\x01\n");
  pipeline::ReadCounters counters;
  CHECK_THROWS_AS(pipeline::for_each_record_in_order(files, 4, counters,
                                                     [](io::SequenceRecord&, std::size_t) {}, 64),
                  io::InputError);
}

TEST_CASE("ordered reader: the consumer's error stops the readers and comes back") {
  TempDir dir;
  const auto files = write_files(dir, 5, 200);
  pipeline::ReadCounters counters;
  int consumed = 0;
  CHECK_THROWS_WITH(pipeline::for_each_record_in_order(
                        files, 3, counters,
                        [&](io::SequenceRecord&, std::size_t) {
                          if (++consumed == 250) throw std::runtime_error("consumer failed");
                        },
                        100),
                    "consumer failed");
  CHECK(consumed == 250);
}
