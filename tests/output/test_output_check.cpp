// check_distinct: an output may be neither an input nor another output,
// however the two paths are spelled, and each standard stream is used once.
#include <sys/stat.h>
#include <unistd.h>

#include "catch.hpp"
#include "output/output_check.hpp"
#include "output_test_support.hpp"

using namespace metawarp;
using namespace metawarp::test;
using output::check_distinct;
using output::NamedPath;

namespace {

// Runs the test from inside `dir`, so that relative spellings can be compared.
class InFolder {
 public:
  explicit InFolder(const std::filesystem::path& dir) : previous_(std::filesystem::current_path()) {
    std::filesystem::current_path(dir);
  }
  ~InFolder() { std::filesystem::current_path(previous_); }

 private:
  std::filesystem::path previous_;
};

}  // namespace

TEST_CASE("distinct: an output that is an input is refused, naming both") {
  ScratchDir dir("same_as_input");
  const std::string reads = dir / "r2.fq", db = dir / "db.mwdb";
  write_text(reads, "@r\nA\n+\nI\n");
  write_text(db, "database");
  const std::vector<NamedPath> inputs{{"database", db}, {"reads", reads}};

  const std::string message = error_of([&] { check_distinct({{"--output", reads}}, inputs); });
  CHECK(contains(message, "--output '" + reads + "'"));
  CHECK(contains(message, "reads '" + reads + "'"));
  CHECK(contains(error_of([&] { check_distinct({{"--report", db}}, inputs); }), "database"));

  // Through a symbolic link and through a hard link: the same inode.
  std::filesystem::create_symlink(reads, dir / "link.fq");
  CHECK_THROWS(check_distinct({{"--output", dir / "link.fq"}}, inputs));
  std::filesystem::create_hard_link(db, dir / "hard.mwdb");
  CHECK_THROWS(check_distinct({{"--output", dir / "hard.mwdb"}}, inputs));

  // "./x" and "x".
  InFolder here(dir.path());
  CHECK_THROWS(check_distinct({{"--kraken-output", "./r2.fq"}}, {{"reads", "r2.fq"}}));
  CHECK_NOTHROW(check_distinct({{"--output", "other.tsv"}}, inputs));
}

TEST_CASE("distinct: two outputs may not be one file, existing or not yet") {
  ScratchDir dir("same_outputs");
  std::filesystem::create_directory(dir / "sub");
  InFolder here(dir.path());
  CHECK_THROWS(check_distinct({{"--output", "same"}, {"--report", "same"}}, {}));
  CHECK_THROWS(check_distinct({{"--output", "same"}, {"--report", "sub/../same"}}, {}));
  CHECK_THROWS(check_distinct({{"--output", "same"}, {"--report", dir / "same"}}, {}));
  std::filesystem::create_symlink("sub/target", "link");  // dangling: leads to sub/target
  const std::string message =
      error_of([&] { check_distinct({{"--output", "link"}, {"--report", "sub/target"}}, {}); });
  CHECK(contains(message, "--output 'link'"));
  CHECK(contains(message, "--report 'sub/target'"));
  write_text("existing", "x");
  CHECK_THROWS(check_distinct({{"--output", "existing"}, {"--abundance", "./existing"}}, {}));
  CHECK_NOTHROW(check_distinct({{"--output", "a"}, {"--report", "b"}, {"--abundance", ""},
                                {"--kraken-output", ""}},
                               {}));
}

TEST_CASE("distinct: standard output and standard input are each used at most once") {
  CHECK(contains(error_of([] { check_distinct({{"--output", "-"}, {"--report", "-"}}, {}); }),
                 "standard output"));
  const std::string message =
      error_of([] { check_distinct({}, {{"reads 1", "-"}, {"reads 2", "-"}}); });
  CHECK(contains(message, "standard input is given twice"));
  CHECK_NOTHROW(check_distinct({{"--output", "-"}}, {{"reads", "-"}}));
}

TEST_CASE("distinct: outputs may share a character device, not a FIFO") {
  // `-o /dev/null --report /dev/null`: /dev/null (and a terminal) takes any
  // number of outputs; two outputs into one FIFO would mix their lines.
  CHECK(error_of([] { check_distinct({{"--output", "/dev/null"}, {"--report", "/dev/null"}}, {}); })
            .empty());
  ScratchDir dir("shared_fifo");
  const std::string fifo = dir / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  CHECK(contains(error_of([&] { check_distinct({{"--output", fifo}, {"--report", fifo}}, {}); }),
                 "are the same file"));
}
