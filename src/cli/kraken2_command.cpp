// `metawarp kraken2` (and metawarp called through a link named kraken2):
// Kraken 2's classification command line with Kraken 2.1.2's meanings
// (docs/cli-query.md, "For Kraken2 users"), run as a metawarp query of one
// sample. What the two mean differently is translated here, once:
// --output is Kraken2's per-read format ('-': none; stdout when not given),
// --db a folder or a database file, the threads Kraken2's default, the
// messages Kraken2's, the reads outputs tagged as Kraken2 tags them.
#include <chrono>
#include <memory>
#include <stdexcept>

#include "cli/commands.hpp"
#include "cli/kraken2_database.hpp"
#include "cli/kraken2_messages.hpp"
#include "cli/kraken2_options.hpp"
#include "cli/number_options.hpp"
#include "cli/query_command.hpp"
#include "cli/query_databases.hpp"
#include "cli/thread_limit.hpp"

namespace metawarp::cli {
namespace {

struct Kraken2Command {
  QueryCommand query;
  std::string db;      // --db NAME
  std::string output;  // --output FILE
  bool only_classified_output = false;  // Kraken 2.1.2 accepts it and does nothing with it
};

// The reads files as Kraken2 takes them, refused where metawarp would read
// them otherwise: Kraken2 classifies several files (or pairs of files) one
// after another as one sample, metawarp one file or one pair per run.
void check_reads(const Kraken2Command& k) {
  const std::vector<std::string>& reads = k.query.options.reads;
  if (reads.empty())
    throw std::invalid_argument(
        "give the reads to classify: a FASTA/FASTQ file (.gz, .bz2 ok), or two with --paired");
  const std::string several = " (Kraken2 classifies several in a row as one sample; metawarp's "
                              "kraken2 one file or one pair per run: concatenate them first, "
                              "`cat a.fq.gz b.fq.gz > all.fq.gz`, or run one sample per run)";
  if (k.query.kraken2.paired && reads.size() != 2)
    throw std::invalid_argument("--paired takes two reads files, mates 1 and 2; " +
                                std::to_string(reads.size()) + " given" +
                                (reads.size() > 2 ? several : std::string()));
  if (!k.query.kraken2.paired && reads.size() > 1)
    throw std::invalid_argument(std::to_string(reads.size()) +
                                " reads files without --paired: add --paired if they are mates "
                                "1 and 2; else they are single reads" + several);
}

// Kraken2's meanings set on the query, once its command line is read.
void translate(const CLI::App& sub, Kraken2Command& k) {
  QueryCommand& cmd = k.query;
  pipeline::QueryOptions& opt = cmd.options;
  cmd.start = std::chrono::steady_clock::now();
  check_reads(k);
  cmd.database = find_kraken2_database(k.db).string();
  if (sub.count("--threads") == 0)
    opt.threads = threads_from_environment("KRAKEN2_NUM_THREADS", 1, thread_ceiling);
  cmd.gpu.layout.devices = {cmd.gpu_device};
  // Kraken2's per-read output is its --output: stdout unless given, none
  // for '-'; metawarp's TSV is not written.
  opt.output.clear();
  opt.kraken_output = sub.count("--output") == 0 ? "-" : k.output == "-" ? "" : k.output;
  // What Kraken2 ignores without the output it changes.
  if (opt.kraken_output.empty()) opt.use_names = false;
  if (opt.report.empty()) opt.report_zero_counts = opt.report_minimizer_data = false;
  opt.kraken2_read_outputs = true;
  cmd.quiet = true;
  cmd.kraken2_messages = true;
}

}  // namespace

void add_kraken2_command(CLI::App& app) {
  auto k = std::make_shared<Kraken2Command>();
  QueryCommand& cmd = k->query;
  pipeline::QueryOptions& opt = cmd.options;
  opt.threads = 1;                          // Kraken2's default
  opt.classifier.minimum_hit_groups = 2;    // Kraken2's default
  CLI::App* sub = app.add_subcommand(
      "kraken2",
      "Kraken 2's command line (kraken2 --db DIR ... READS), as Kraken 2.1.2 means it; also "
      "metawarp called through a link named kraken2");
  sub->set_version_flag("--version", kraken2_version_text());
  sub->add_option("reads", opt.reads,
                  "Reads (FASTA/FASTQ, .gz/.bz2 ok, '-' for stdin); two with --paired")
      ->check(existing_file_or_stdin());
  sub->add_option("--db", k->db,
                  "A folder holding metawarp.mwdb (kraken2-build --build writes it), or a "
                  "database file (default: $KRAKEN2_DEFAULT_DB; a bare name is looked for in "
                  "$KRAKEN2_DB_PATH)");
  add_number(*sub, "--threads", opt.threads,
             "Worker threads (default: $KRAKEN2_NUM_THREADS, else 1; at most 4 x the cores)", 1u);
  sub->add_option("--output", k->output,
                  "Kraken2's per-read output ('-': none; default: stdout)");
  sub->add_option("--report", opt.report, "Kraken2's report");
  sub->add_flag("--report-minimizer-data", opt.report_minimizer_data,
                "The report also gives, per clade, the reads' features (minimizers) and the "
                "distinct ones");
  add_fraction(*sub, "--confidence", cmd.confidence,
               "Kraken2's confidence score: the call's clade must hold this fraction of the "
               "read's features",
               0.0, 1.0);
  sub->add_flag("--only-classified-output", k->only_classified_output,
                "Accepted without effect, as Kraken 2.1.2 accepts it");
  add_kraken2_options(*sub, opt, cmd.kraken2);
  sub->callback([k, sub] {
    translate(*sub, *k);
    OwnDatabases own;
    run_query(k->query, own);
  });
}

}  // namespace metawarp::cli
