#pragma once
// Many samples in one query run: the database is loaded (and for the GPU
// uploaded) once, then each sample is an ordinary run_query with its own
// reads and outputs, so its outputs are byte-identical to those of a run for
// that sample alone.
//
// A sample's output paths come from the same options as for one sample, with
// "{sample}" replaced by the sample's name ("{sample}.report" ->
// "gut_A.report"), relative paths then placed under the output folder. All
// samples' paths are checked together before any work, so that no output is
// an input of any sample, the database or another sample's output.
//
// Samples run one after another, in the given order. The first one that fails
// ends the run: its outputs are removed (as for any failed query), those of
// the samples before it are complete and stay, the samples after it are not
// run (files at their output paths are left as they are), and the error
// names the sample and says so.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/progress.hpp"
#include "pipeline/query/query.hpp"

namespace metawarp::pipeline {

struct Sample {
  std::string name;                // in its output paths
  std::vector<std::string> reads;  // one file (single or interleaved) or R1, R2
  std::string origin;              // where it was given, for messages: "s.tsv line 4", "--sample"
};

// What replaces a sample's name in output paths.
inline constexpr std::string_view sample_placeholder = "{sample}";

// Why `name` cannot be a sample name, or empty when it can: 1 to 100 letters,
// digits, '.', '_' or '-', not starting with '.' or '-', so that it is a file
// name on every system and no option or hidden file once in a path.
std::string sample_name_problem(std::string_view name);

// Throws std::invalid_argument when there is no sample, a name is not a safe
// file name, two samples have the same name (ignoring case: on a
// case-insensitive file system their outputs would be one file), a sample has
// no or more than two reads files, or two files with `interleaved`.
void check_samples(const std::vector<Sample>& samples, bool interleaved);

// Throws std::invalid_argument when an output of `options` mentions
// {sample} although there is a single sample (`samples` false), or lacks it
// although there are several (every sample would write the same file).
void check_output_templates(const QueryOptions& options, bool samples);

// `options` for one sample: its reads, and every output path with {sample}
// replaced by its name and, when relative, put under `output_dir` (empty:
// the working folder).
QueryOptions sample_query_options(const QueryOptions& options, const Sample& sample,
                                  const std::filesystem::path& output_dir);

// check_samples, check_output_templates, then the output rule over all
// samples at once (output/output_check.hpp): every output a new path or a
// regular file, none the same file as the database, any sample's reads or
// another output. Reads file metadata only.
void check_sample_paths(const QueryOptions& options, const std::vector<Sample>& samples,
                        const std::filesystem::path& output_dir,
                        const std::filesystem::path& database);

// Told about each sample that completed (its summary on stderr, say).
class SampleObserver {
 public:
  virtual ~SampleObserver() = default;
  // Sample `index` (0-based) of `count` completed.
  virtual void finished(const Sample& sample, std::size_t index, std::size_t count,
                        const QuerySummary& summary) = 0;
};

// Runs every sample (after check_sample_paths) on one engine (resident or
// streamed; nullptr: the CPU's), each with a
// progress line ("query: sample 2/5 gut_A: ...") in `progress` style. Throws,
// for the first sample that fails, std::runtime_error with its message,
// naming the sample, the samples completed (outputs kept) and those not run.
// The samples share one QueryBuffers (`buffers`, or one of its own), so a
// sample after the first allocates and faults in nothing.
std::vector<QuerySummary> run_samples(const db::Database& db, const QueryOptions& options,
                                      const std::vector<Sample>& samples,
                                      const std::filesystem::path& output_dir,
                                      const QueryEngine* engine,
                                      ProgressStyle progress = ProgressStyle::off,
                                      SampleObserver* observer = nullptr,
                                      QueryBuffers* buffers = nullptr);

}  // namespace metawarp::pipeline
