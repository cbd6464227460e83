// Directories to sorted lists of sequence files.
#include <algorithm>

#include "catch.hpp"
#include "io_test_support.hpp"

using namespace metawarp::io;
using namespace metawarp::io::test;

TEST_CASE("directories are searched recursively for sequence files, sorted") {
  TempDir dir;
  const fs::path root = dir.path() / "refs";
  fs::create_directories(root / "b_sub" / "deeper");
  fs::create_directories(root / "a_sub");
  const std::vector<std::string> sequence_names = {
      "z.fa", "a.fna.gz", "b_sub/x.fasta", "b_sub/deeper/y.ffn", "a_sub/r.frn", "a_sub/reads.fq.gz",
      "a_sub/reads2.fastq", "c.FA.GZ", "m.fq"};
  const std::vector<std::string> other_names = {"notes.txt", "a_sub/taxonomy.dmp", "b_sub/x.fasta.bak",
                                                "z.gz", "fa"};
  std::vector<std::string> expected;
  for (const auto& name : sequence_names) {
    write_file((root / name).string(), ">x\nA\n");
    expected.push_back((root / name).string());
  }
  for (const auto& name : other_names) write_file((root / name).string(), "x");
  std::sort(expected.begin(), expected.end());

  CHECK(expand_inputs({root.string()}) == expected);

  SECTION("files named directly are kept as given, in argument order, whatever their extension") {
    const std::string notes = (root / "notes.txt").string();
    const std::string single = (root / "z.fa").string();
    std::vector<std::string> want = {notes};
    want.insert(want.end(), expected.begin(), expected.end());
    want.push_back(single);
    want.push_back("-");
    CHECK(expand_inputs({notes, root.string(), single, "-"}) == want);
  }
}

TEST_CASE("a missing path or a directory without sequence files is an error naming it") {
  TempDir dir;
  const std::string missing = dir.file("not_here.fa");
  REQUIRE_THROWS_WITH(expand_inputs({missing}), missing + ": no such file or directory");
  fs::create_directories(dir.path() / "empty_dir");
  const std::string empty = (dir.path() / "empty_dir").string();
  try {
    expand_inputs({empty});
    FAIL("no error");
  } catch (const InputError& error) {
    CHECK(std::string(error.what()).find(empty + ": directory holds no sequence files") == 0);
  }
}
