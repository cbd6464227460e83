#include "pipeline/query/samples.hpp"

#include <cctype>
#include <exception>
#include <map>
#include <stdexcept>

#include "output/output_check.hpp"
#include "pipeline/query/query_buffers.hpp"
#include "pipeline/query/query_progress.hpp"

namespace metawarp::pipeline {

namespace {

constexpr std::size_t max_name_length = 100;

bool contains_placeholder(const std::string& path) {
  return path.find(sample_placeholder) != std::string::npos;
}

std::string replace_placeholder(std::string path, const std::string& name) {
  for (std::size_t at = path.find(sample_placeholder); at != std::string::npos;
       at = path.find(sample_placeholder, at + name.size()))
    path.replace(at, sample_placeholder.size(), name);
  return path;
}

std::string lowercase(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

std::string quoted(const std::string& text) { return "'" + text + "'"; }

// "'a', 'b' and 3 more": at most five names.
std::string name_list(const std::vector<Sample>& samples, std::size_t from, std::size_t to) {
  constexpr std::size_t shown = 5;
  std::string list;
  for (std::size_t i = from; i < to && i < from + shown; ++i)
    list += (i == from ? "" : ", ") + quoted(samples[i].name);
  if (to - from > shown) list += " and " + std::to_string(to - from - shown) + " more";
  return list;
}

std::string samples_phrase(std::size_t count) {
  return std::to_string(count) + (count == 1 ? " sample" : " samples");
}

// The message for sample `index` failing with `what`.
std::string sample_failure(const std::vector<Sample>& samples, std::size_t index,
                           const std::string& what) {
  const Sample& s = samples[index];
  std::string message = "sample " + quoted(s.name) + " (" + std::to_string(index + 1) + " of " +
                        std::to_string(samples.size()) +
                        (s.origin.empty() ? "" : ", " + s.origin) + "): " + what +
                        "; its outputs were removed";
  if (index > 0)
    message += "; the " + samples_phrase(index) + " before it (" + name_list(samples, 0, index) +
               ") completed, outputs kept";
  if (index + 1 < samples.size())
    message += "; the " + samples_phrase(samples.size() - index - 1) + " after it (" +
               name_list(samples, index + 1, samples.size()) + ") not run";
  return message;
}

}  // namespace

std::string sample_name_problem(std::string_view name) {
  if (name.empty()) return "it is empty";
  if (name.size() > max_name_length)
    return "it is longer than " + std::to_string(max_name_length) + " characters";
  if (name.front() == '.' || name.front() == '-') return "it starts with '.' or '-'";
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-')
      return "it holds a character other than letters, digits, '.', '_' and '-'";
  return {};
}

void check_samples(const std::vector<Sample>& samples, bool interleaved) {
  if (samples.empty()) throw std::invalid_argument("no samples given");
  std::map<std::string, const Sample*> by_name;  // lowercase name -> first sample with it
  for (const Sample& s : samples) {
    const std::string where = s.origin.empty() ? "" : " (" + s.origin + ")";
    if (const std::string problem = sample_name_problem(s.name); !problem.empty())
      throw std::invalid_argument("sample name " + quoted(s.name) + where +
                                  " is not a safe file name: " + problem);
    if (s.reads.empty() || s.reads.size() > 2)
      throw std::invalid_argument("sample " + quoted(s.name) + where +
                                  " needs one reads file, or two for pairs (R1, R2)");
    if (interleaved && s.reads.size() == 2)
      throw std::invalid_argument("sample " + quoted(s.name) + where +
                                  ": --interleaved takes one reads file, not two");
    const auto [it, added] = by_name.emplace(lowercase(s.name), &s);
    if (!added)
      throw std::invalid_argument(
          "sample name " + quoted(s.name) + where + " is already the name of sample " +
          quoted(it->second->name) +
          (it->second->origin.empty() ? "" : " (" + it->second->origin + ")") +
          (it->second->name == s.name ? "" : " (names may not differ only in case)"));
  }
}

void check_output_templates(const QueryOptions& options, bool samples) {
  for (const output::NamedPath& out : query_outputs(options)) {
    if (out.path.empty()) continue;
    const bool has = contains_placeholder(out.path);
    if (!samples && has)
      throw std::invalid_argument(out.label + " " + quoted(out.path) +
                                  ": {sample} stands for a sample's name and needs samples "
                                  "(--samples or --sample)");
    if (samples && out.path == "-")
      throw std::invalid_argument(out.label +
                                  " '-': standard output cannot hold the outputs of several "
                                  "samples; give a path with {sample}, or '' for none");
    if (samples && !has)
      throw std::invalid_argument(out.label + " " + quoted(out.path) +
                                  ": with samples every output path must contain {sample}, "
                                  "which becomes the sample's name (for example "
                                  "'{sample}.tsv')");
  }
}

QueryOptions sample_query_options(const QueryOptions& options, const Sample& sample,
                                  const std::filesystem::path& output_dir) {
  QueryOptions o = options;
  o.reads = sample.reads;
  for (std::string* path : {&o.output, &o.kraken_output, &o.report, &o.abundance, &o.bracken_output,
                            &o.classified_out, &o.unclassified_out}) {
    if (path->empty() || *path == "-") continue;
    std::filesystem::path p = replace_placeholder(*path, sample.name);
    if (p.is_relative() && !output_dir.empty()) p = output_dir / p;
    *path = p.string();
  }
  return o;
}

void check_sample_paths(const QueryOptions& options, const std::vector<Sample>& samples,
                        const std::filesystem::path& output_dir,
                        const std::filesystem::path& database) {
  check_samples(samples, options.interleaved);
  check_output_templates(options, true);
  std::vector<output::NamedPath> outputs;
  std::vector<output::NamedPath> inputs;
  if (!database.empty()) inputs.push_back({"database", database.string()});
  for (const Sample& s : samples) {
    const std::string label = "sample " + quoted(s.name) + " ";
    for (std::size_t i = 0; i < s.reads.size(); ++i)
      inputs.push_back({label + (s.reads.size() == 2 ? "reads " + std::to_string(i + 1) : "reads"),
                        s.reads[i]});
    for (output::NamedPath& out : query_outputs(sample_query_options(options, s, output_dir)))
      outputs.push_back({label + out.label, std::move(out.path)});
  }
  outputs.insert(outputs.end(), options.run_outputs.begin(), options.run_outputs.end());
  output::check_outputs(outputs, inputs);
}

std::vector<QuerySummary> run_samples(const db::Database& db, const QueryOptions& options,
                                      const std::vector<Sample>& samples,
                                      const std::filesystem::path& output_dir,
                                      const QueryEngine* engine, ProgressStyle progress,
                                      SampleObserver* observer, QueryBuffers* buffers) {
  check_sample_paths(options, samples, output_dir, {});
  QueryBuffers own;
  QueryBuffers& shared = buffers ? *buffers : own;
  std::vector<QuerySummary> summaries;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const QueryOptions sample_options = sample_query_options(options, samples[i], output_dir);
    try {
      // Gone (its line erased) before the summary or the error is printed.
      QueryProgress line(progress,
                         "query: sample " + std::to_string(i + 1) + "/" +
                             std::to_string(samples.size()) + " " + samples[i].name,
                         sample_options);
      summaries.push_back(run_query(db, sample_options, engine, &line.counters(), &shared));
    } catch (const std::exception& e) {
      throw std::runtime_error(sample_failure(samples, i, e.what()));
    }
    if (observer) observer->finished(samples[i], i, samples.size(), summaries.back());
  }
  return summaries;
}

}  // namespace metawarp::pipeline
