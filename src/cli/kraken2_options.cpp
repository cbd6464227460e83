#include "cli/kraken2_options.hpp"

#include <stdexcept>

namespace metawarp::cli {

void add_kraken2_options(CLI::App& query, pipeline::QueryOptions& options, Kraken2Flags& flags) {
  const std::string group = "Kraken2's options";
  query.add_flag("--paired", flags.paired,
                 "Kraken2's: the two reads files are mates 1 and 2 (one file of pairs: "
                 "--interleaved)")
      ->group(group);
  query.add_flag("--gzip-compressed", flags.gzip_compressed,
                 "Kraken2's; accepted: compression is detected from the content")
      ->group(group);
  query.add_flag("--bzip2-compressed", flags.bzip2_compressed,
                 "Kraken2's; accepted: compression is detected from the content")
      ->group(group);
  query.add_option("--minimum-hit-groups", flags.minimum_hit_groups,
                   "Kraken2's; refused with the metawarp option to use (--hit-min)")
      ->group(group);
  query.add_flag("--use-names", options.use_names,
                 "Kraken2 per-read output (--kraken-output): 'name (taxid N)' for the taxid")
      ->group(group);
  query.add_flag("--report-zero-counts", options.report_zero_counts,
                 "The report (--report) lists every taxon of the database, also without reads")
      ->group(group);
  query.add_flag("--use-mpa-style", options.mpa_style,
                 "The report (--report) in MetaPhlAn style, as KrakenTools' kreport2mpa writes it")
      ->group(group);
  query.add_option("--classified-out", options.classified_out,
                   "Classified reads, as read; pairs: '#' in the path becomes _1/_2; .gz: gzip")
      ->group(group);
  query.add_option("--unclassified-out", options.unclassified_out,
                   "Unclassified reads, as read; pairs: '#' in the path becomes _1/_2; .gz: gzip")
      ->group(group);
}

void check_kraken2_options(const Kraken2Flags& flags, const pipeline::QueryOptions& options,
                           const std::vector<pipeline::Sample>& samples) {
  if (!flags.minimum_hit_groups.empty())
    throw std::invalid_argument(
        "--minimum-hit-groups is Kraken2's count of minimizer groups, which metawarp does not "
        "have; its threshold is --hit-min N: sketch features the best candidate needs "
        "(default: s/3 for single reads, s/2 for pairs; docs/cli-query.md)");
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
