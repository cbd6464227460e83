#pragma once
// Samples for `metawarp query`, from a sample sheet (--samples) or from the
// command line (--sample NAME R1 [R2], repeatable).
//
// A sample sheet is a text file with one sample per line, tab-separated:
// name, R1, and R2 for pairs (an empty R2 column is no R2). Lines whose first
// non-blank character is '#' (a header, say) and blank lines are skipped; a
// '\r' before the line end is ignored. Relative reads paths are relative to
// the sheet's folder, so a sheet means the same files from any working
// folder.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/query/samples.hpp"

namespace metawarp::cli {

// Throws std::invalid_argument naming the sheet, the line and the problem:
// a line without a reads file, more than three columns, a name that is not a
// safe file name (pipeline::sample_name_problem), a reads file that does not
// exist. Names given twice are left to pipeline::check_samples (each sample
// carries its sheet and line as its origin). An unreadable sheet is
// std::runtime_error.
std::vector<pipeline::Sample> read_sample_sheet(const std::filesystem::path& sheet);

// The same over a sheet's text; `sheet` names it in messages and its folder
// anchors relative paths.
std::vector<pipeline::Sample> parse_sample_sheet(std::string_view text,
                                                 const std::filesystem::path& sheet);

// One --sample NAME R1 [R2]. Throws std::invalid_argument like a sheet line.
pipeline::Sample sample_from_option(const std::vector<std::string>& values);

}  // namespace metawarp::cli
