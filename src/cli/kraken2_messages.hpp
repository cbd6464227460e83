#pragma once
// What `metawarp kraken2` says on stderr: Kraken2 2.1.2's lines (its
// classify.cc), which logs and the people reading them know.
#include <string>

#include "pipeline/query/query.hpp"

namespace metawarp::cli {

// Once the database is loaded (Kraken2 prints the first half before loading;
// printed whole here, so that an error is always a line of its own).
inline constexpr const char* kraken2_loaded_line = "Loading database information... done.\n";

// What --version prints on Kraken 2's command lines: first Kraken 2's line,
// which version commands read ("Kraken version metawarp-0.1.0"), then what
// runs.
std::string kraken2_version_text();

// The run's summary, as Kraken2 prints it:
//   1000 sequences (0.30 Mbp) processed in 0.120s (500.0 Kseq/m, 150.00 Mbp/m).
//     900 sequences classified (90.00%)
//     100 sequences unclassified (10.00%)
// A pair is one sequence, its bases both mates'. With no reads (or no time)
// the percentages and rates are 0, where Kraken2 divides by zero.
std::string kraken2_summary(const pipeline::QuerySummary& summary);

}  // namespace metawarp::cli
