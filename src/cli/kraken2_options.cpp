#include "cli/kraken2_options.hpp"

#include <stdexcept>

#include "cli/number_options.hpp"

namespace metawarp::cli {

void add_kraken2_options(CLI::App& command, pipeline::QueryOptions& options,
                         Kraken2Flags& flags) {
  const std::string group = kraken2_options_group;
  command
      .add_flag("--paired", flags.paired,
                "Kraken2's: the two reads files are mates 1 and 2")
      ->group(group);
  command
      .add_flag("--gzip-compressed", flags.gzip_compressed,
                "Kraken2's; accepted: compression is detected from the content")
      ->group(group);
  command
      .add_flag("--bzip2-compressed", flags.bzip2_compressed,
                "Kraken2's; accepted: compression is detected from the content")
      ->group(group);
  command
      .add_flag("--quick", flags.quick,
                "Kraken2's; accepted without effect: every read is classified in full")
      ->group(group);
  command
      .add_flag("--memory-mapping", flags.memory_mapping,
                "Kraken2's; accepted without effect: the database is read into memory")
      ->group(group);
  add_number(command, "--minimum-hit-groups", options.classifier.minimum_hit_groups,
             "A call needs at least this many of the read's features in the database, else "
             "the read is unclassified (Kraken2's hit groups; 0: off)")
      ->group(group);
  add_number(command, "--minimum-base-quality", options.minimum_base_quality,
             "FASTQ bases of a lower quality (Phred+33) are masked before classification "
             "(0: off)")
      ->group(group);
  command
      .add_flag("--use-names", options.use_names,
                "Kraken2 per-read output: 'name (taxid N)' for the taxid")
      ->group(group);
  command
      .add_flag("--report-zero-counts", options.report_zero_counts,
                "The report (--report) lists every taxon of the database, also without reads")
      ->group(group);
  command
      .add_flag("--use-mpa-style", options.mpa_style,
                "The report (--report) in MetaPhlAn style, as Kraken2 writes it (d__Bacteria|...)")
      ->group(group);
  command
      .add_option("--classified-out", options.classified_out,
                  "Classified reads; pairs: '#' in the path becomes _1/_2; .gz: gzip")
      ->group(group);
  command
      .add_option("--unclassified-out", options.unclassified_out,
                  "Unclassified reads; pairs: '#' in the path becomes _1/_2; .gz: gzip")
      ->group(group);
}

void add_refused_option(CLI::App& command, const std::string& name, bool takes_value,
                        const std::string& help, const std::string& message) {
  const auto refuse = [message] { throw std::invalid_argument(message); };
  CLI::Option* option =
      takes_value ? command.add_option_function<std::string>(
                        name, [refuse](const std::string&) { refuse(); })
                  : command.add_flag_callback(name, refuse);
  option->description(help)->group(help.empty() ? "" : "Refused");
}

std::vector<std::string> given_kraken2_options(const CLI::App& command) {
  std::vector<std::string> given;
  for (const CLI::Option* option : command.get_options())
    if (option->get_group() == kraken2_options_group && option->count() > 0)
      given.push_back(option->get_name());
  return given;
}

void check_kraken2_options(const Kraken2Flags& flags, const pipeline::QueryOptions& options,
                           const std::vector<pipeline::Sample>& samples) {
  if (flags.gzip_compressed && flags.bzip2_compressed)
    throw std::invalid_argument(
        "--gzip-compressed and --bzip2-compressed contradict each other (Kraken2 refuses both "
        "too); neither is needed: compression is detected from the content");
  if (flags.paired) {
    if (options.interleaved)
      throw std::invalid_argument(
          "--paired names two reads files (mates 1 and 2); with --interleaved there is one");
    if (samples.empty() && options.reads.size() != 2)
      throw std::invalid_argument(
          "--paired needs two reads files (mates 1 and 2); for pairs in one file, mate 1 then "
          "mate 2, use --interleaved");
    for (const pipeline::Sample& sample : samples)
      if (sample.reads.size() != 2)
        throw std::invalid_argument("--paired: sample '" + sample.name +
                                    "' has one reads file; every sample needs R1 and R2 (for "
                                    "pairs in one file, use --interleaved instead of --paired)");
  }
  if ((options.report_zero_counts || options.mpa_style) && options.report.empty())
    throw std::invalid_argument(std::string(options.mpa_style ? "--use-mpa-style"
                                                              : "--report-zero-counts") +
                                " changes the report: give --report FILE");
  if (options.use_names && options.kraken_output.empty())
    throw std::invalid_argument(
        "--use-names changes the Kraken2 per-read output: give --kraken-output FILE (Kraken2's "
        "--output); metawarp's per-read TSV (-o) always has the names");
}

}  // namespace metawarp::cli
