// The pieces of --classified-out/--unclassified-out (pipeline/query/read_outputs.hpp):
// Kraken2's '#' for mates, and each record's text exactly as it was read.
#include <string>
#include <vector>

#include "catch.hpp"
#include "error_of.hpp"
#include "io/cut/record_blocks.hpp"
#include "pipeline/query/read_outputs.hpp"

using metawarp::pipeline::append_record;
using metawarp::pipeline::mate_paths;
using metawarp::pipeline::record_texts;
using metawarp::test::error_of;

namespace {

std::vector<std::string> texts_of(metawarp::io::Format format, const std::string& bytes) {
  metawarp::io::RecordBlock block;
  block.format = format;
  block.bytes.append(bytes);
  std::vector<std::string_view> views;
  record_texts(block, views);
  return {views.begin(), views.end()};
}

}  // namespace

TEST_CASE("'#' names the mates of pairs, as in Kraken2") {
  CHECK(mate_paths("out#.fq", true, "--classified-out") ==
        std::vector<std::string>{"out_1.fq", "out_2.fq"});
  CHECK(mate_paths("dir/{sample}#.fq.gz", true, "--classified-out") ==
        std::vector<std::string>{"dir/{sample}_1.fq.gz", "dir/{sample}_2.fq.gz"});
  CHECK(mate_paths("out.fq", false, "--classified-out") == std::vector<std::string>{"out.fq"});
  CHECK(mate_paths("", true, "--classified-out").empty());
  CHECK(error_of([] { mate_paths("out.fq", true, "--classified-out"); })
            .find("--classified-out 'out.fq': pairs need a '#'") != std::string::npos);
  CHECK(error_of([] { mate_paths("out#.fq", false, "--unclassified-out"); })
            .find("single-end") != std::string::npos);
  CHECK(error_of([] { mate_paths("a#b#.fq", true, "--unclassified-out"); })
            .find("more than one '#'") != std::string::npos);
}

TEST_CASE("FASTQ records as read: line ends kept, blank lines between records left out") {
  const std::string a = "@r1 first\r\nACGT\r\n+r1 first\r\nIIII\r\n";
  const std::string b = "@r2\nAC\n+\nII\n";
  const std::string c = "@r3\n\n+\n";  // an empty read, then no line end at the very end
  const auto texts = texts_of(metawarp::io::Format::fastq, "\n" + a + "\n\r\n" + b + c);
  REQUIRE(texts.size() == 3);
  CHECK(texts[0] == a);
  CHECK(texts[1] == b);
  CHECK(texts[2] == c);
  std::string out;
  append_record(out, "@r3\nA\n+\nI");  // the input's last line without its line end
  CHECK(out == "@r3\nA\n+\nI\n");
}

TEST_CASE("FASTA records as read: wrapped lines kept, trailing blank lines left out") {
  const std::string a = ">s1 desc\nACGT\nAC\n";
  const std::string b = ">s2\r\nGG\r\n\r\nTT\r\n";  // a blank line inside stays inside
  const std::string c = ">s3\n";                    // an empty sequence
  const auto texts = texts_of(metawarp::io::Format::fasta, a + "\n" + b + "\n\n" + c + "\n");
  REQUIRE(texts.size() == 3);
  CHECK(texts[0] == a);
  CHECK(texts[1] == b);
  CHECK(texts[2] == c);
}

TEST_CASE("Kraken2's command line: a single-end path keeps its '#', classified headers tagged") {
  // Kraken 2.1.2 replaces '#' only with --paired, and appends
  // " kraken:taxid|N" to the header of each classified read it writes.
  CHECK(mate_paths("out#.fq", false, "--classified-out", true) ==
        std::vector<std::string>{"out#.fq"});
  CHECK(mate_paths("out#.fq", true, "--classified-out", true) ==
        std::vector<std::string>{"out_1.fq", "out_2.fq"});
  CHECK(error_of([] { mate_paths("out.fq", true, "--classified-out", true); })
            .find("pairs need a '#'") != std::string::npos);
  CHECK(metawarp::pipeline::kraken2_header_tag(562) == " kraken:taxid|562");
  std::string out;
  append_record(out, "@r1 first\r\nACGT\r\n+\r\nIIII\r\n", " kraken:taxid|562");
  append_record(out, ">s2\nAC\nGT", " kraken:taxid|9");
  append_record(out, ">s3", " kraken:taxid|1");
  CHECK(out ==
        "@r1 first kraken:taxid|562\r\nACGT\r\n+\r\nIIII\r\n"
        ">s2 kraken:taxid|9\nAC\nGT\n"
        ">s3 kraken:taxid|1\n");
}
