// The build summary's warnings by name, and the name lists they use. The
// name lists are filled by the build pipeline; here they are set by hand.
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli/build_warnings.hpp"
#include "cli/name_list.hpp"

using namespace metawarp;
using namespace metawarp::cli;

namespace {

std::vector<std::string> numbered(const std::string& stem, int n) {
  std::vector<std::string> names;
  for (int i = 1; i <= n; ++i) names.push_back(stem + std::to_string(i));
  return names;
}

}  // namespace

TEST_CASE("name lists: at most ten names, then how many more") {
  CHECK(name_list({}) == "");
  CHECK(name_list({"a"}) == "a");
  CHECK(name_list({"a", "b", "c"}) == "a, b, c");
  CHECK(name_list(numbered("t", 10)) == "t1, t2, t3, t4, t5, t6, t7, t8, t9, t10");
  CHECK(name_list(numbered("t", 12)) ==
        "t1, t2, t3, t4, t5, t6, t7, t8, t9, t10 ... and 2 more");
  // Only the first names kept, the total known.
  CHECK(name_list({"a", "b"}, 5000) == "a, b ... and 4998 more");
  CHECK(name_list({"a", "b", "c"}, 3, 2) == "a, b ... and 1 more");
}

TEST_CASE("build warnings: one line per kind of problem, by name") {
  pipeline::BuildSummary summary;
  CHECK(build_warnings(summary, "refs.mwdb").empty());

  summary.unmapped_targets = 12;
  summary.unmapped_target_names = numbered("target", 12);
  summary.duplicate_target_names = {"chr1"};
  summary.repeated_files = {"a.fa", "b.fa"};
  summary.unknown_ranks = {"superfamily"};
  const std::string text = build_warnings(summary, "refs.mwdb");
  CHECK(text ==
        "build: warning: 12 targets have no taxon (no taxid, or one the taxonomy lacks): "
        "target1, target2, target3, target4, target5, target6, target7, target8, target9, "
        "target10 ... and 2 more; `metawarp info refs.mwdb --unranked` lists them all\n"
        "build: warning: 1 name is given to more than one target: chr1\n"
        "build: warning: 2 files were named more than once and read once: a.fa, b.fa\n"
        "build: warning: 1 unknown rank name in the taxonomy: superfamily\n");
}

TEST_CASE("build warnings: a count without names still warns and points to info") {
  pipeline::BuildSummary summary;
  summary.unmapped_targets = 3;
  CHECK(build_warnings(summary, "db") ==
        "build: warning: 3 targets have no taxon (no taxid, or one the taxonomy lacks); "
        "`metawarp info db --unranked` lists them all\n");
}
