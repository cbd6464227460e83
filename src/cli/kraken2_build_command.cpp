// `metawarp kraken2-build` (and metawarp called through a link named
// kraken2-build): Kraken 2's `kraken2-build --build --db DIR`, which builds
// DIR's database from the folder Kraken 2's build reads (its
// build_kraken2_db.sh): the sequences of DIR/library (*.fna, at any depth),
// the taxonomy of DIR/taxonomy (nodes.dmp, names.dmp), each sequence's
// taxid from DIR/seqid2taxid.map when there is one, else from the
// prelim_map files kraken2-build --add-to-library writes in DIR/library, and
// from `kraken:taxid|N` in the headers. The database is DIR/metawarp.mwdb,
// which `metawarp kraken2 --db DIR` reads. Kraken 2's other tasks (downloads,
// --add-to-library, --clean, ...) and the options that shape its own hash
// table are refused with what to do instead; its build-speed options are
// accepted without effect.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "cli/build_command.hpp"
#include "cli/commands.hpp"
#include "cli/kraken2_database.hpp"
#include "cli/kraken2_messages.hpp"
#include "cli/kraken2_options.hpp"
#include "cli/number_options.hpp"
#include "cli/thread_limit.hpp"
#include "taxonomy/id_mapping.hpp"

namespace metawarp::cli {
namespace fs = std::filesystem;

namespace {

struct Kraken2BuildCommand {
  bool build = false;
  std::string db;
  BuildCommand metawarp;
  // Accepted without effect: Kraken 2's build speed and its hash table.
  bool fast_build = false, masking = false, no_masking = false, skip_maps = false,
       use_ftp = false;
  double load_factor = 0.7;
  std::uint64_t block_size = 16384, subblock_size = 0, minimum_bits_for_taxid = 0;
};

// Files under `folder` (at any depth) whose names `take` accepts, sorted.
template <class Take>
std::vector<std::string> files_under(const fs::path& folder, Take take) {
  std::vector<std::string> files;
  std::error_code error;
  for (fs::recursive_directory_iterator it(folder, error), end; !error && it != end;
       it.increment(error))
    if (it->is_regular_file(error) && take(it->path().filename().string()))
      files.push_back(it->path().string());
  if (error)
    throw std::runtime_error(folder.string() + ": cannot list the folder: " + error.message());
  std::sort(files.begin(), files.end());
  return files;
}

// The build Kraken 2's build_kraken2_db.sh makes of DIR, as a metawarp build.
void plan_build(Kraken2BuildCommand& k) {
  const fs::path dir = k.db;
  pipeline::BuildOptions& opt = k.metawarp.options;
  std::error_code error;
  if (!fs::is_directory(dir, error))
    throw std::invalid_argument("--db " + k.db + ": no such folder (Kraken 2's database folder, "
                                "holding library/ and taxonomy/)");
  for (const char* part : {"taxonomy", "library"})
    if (!fs::is_directory(dir / part, error))
      throw std::invalid_argument("--db " + k.db + ": no " + part + "/ folder in it (--build "
                                  "reads DIR/library/*.fna and DIR/taxonomy/nodes.dmp, names.dmp)");
  opt.references =
      files_under(dir / "library", [](const std::string& name) { return name.ends_with(".fna"); });
  const std::vector<std::string> proteins =
      files_under(dir / "library", [](const std::string& name) { return name.ends_with(".faa"); });
  if (!proteins.empty())
    throw std::invalid_argument(proteins.front() + ": protein sequences (.faa): metawarp builds "
                                "nucleotide databases only");
  if (opt.references.empty())
    throw std::invalid_argument("--db " + k.db + ": no sequences in library/ (*.fna files, as "
                                "kraken2-build --download-library or --add-to-library put there)");
  opt.taxonomy_dir = dir / "taxonomy";
  if (fs::exists(dir / "seqid2taxid.map", error)) {
    opt.seqid2taxid_files = {(dir / "seqid2taxid.map").string()};
  } else {
    opt.seqid2taxid_files = files_under(dir / "library", [](const std::string& name) {
      return name == "prelim_map.txt" ||
             (name.starts_with("prelim_map_") && name.ends_with(".txt"));
    });
  }
  opt.accession2taxid_files = files_under(dir / "taxonomy", [](const std::string& name) {
    return name.ends_with(".accession2taxid") || name.ends_with(".accession2taxid.gz");
  });
  for (const std::string& map : opt.seqid2taxid_files)
    if (opt.accession2taxid_files.empty() && taxonomy::maps_by_accession(map))
      throw std::invalid_argument(map + ": sequences mapped by accession (ACCNUM lines) need the "
                                  "accession2taxid files in taxonomy/ (kraken2-build "
                                  "--download-taxonomy fetches them)");
  k.metawarp.database = (dir / kraken2_database_file).string();
}

// An option of Kraken 2's that metawarp does not do: refused, saying why.
void refuse(CLI::App& sub, const std::string& name, const std::string& why, bool takes_value) {
  add_refused_option(sub, name, takes_value, "Kraken 2's; refused, saying what to do instead",
                     name + " is not available in metawarp's kraken2-build: " + why);
}

}  // namespace

void add_kraken2_build_command(CLI::App& app) {
  auto k = std::make_shared<Kraken2BuildCommand>();
  pipeline::BuildOptions& opt = k->metawarp.options;
  opt.threads = 1;  // Kraken 2's default
  CLI::App* sub = app.add_subcommand(
      "kraken2-build",
      "Kraken 2's kraken2-build --build --db DIR: DIR/metawarp.mwdb from DIR/library and "
      "DIR/taxonomy; also metawarp called through a link named kraken2-build");
  sub->set_version_flag("--version", kraken2_version_text());
  sub->add_flag("--build", k->build, "Build DIR/metawarp.mwdb from DIR/library and DIR/taxonomy");
  sub->add_option("--db", k->db, "The database folder (default: $KRAKEN2_DB_NAME)");
  add_number(*sub, "--threads", opt.threads,
             "Worker threads (default: $KRAKEN2_THREAD_CT, else 1; at most 4 x the cores)", 1u);
  const std::string accepted = "Accepted without effect";
  sub->add_flag("--fast-build", k->fast_build, "Kraken 2's; metawarp's build is always exact")
      ->group(accepted);
  sub->add_flag("--masking", k->masking,
                "Kraken 2's low-complexity masking of --add-to-library; nothing to do for --build")
      ->group(accepted);
  sub->add_flag("--no-masking", k->no_masking, "Kraken 2's, for --add-to-library")
      ->group(accepted);
  sub->add_flag("--skip-maps", k->skip_maps, "Kraken 2's, for downloads")->group(accepted);
  sub->add_flag("--use-ftp", k->use_ftp, "Kraken 2's, for downloads")->group(accepted);
  add_fraction(*sub, "--load-factor", k->load_factor, "Kraken 2's hash table fill", 0.0, 1.0)
      ->group(accepted);
  add_number(*sub, "--block-size", k->block_size, "Kraken 2's build blocks", 1)->group(accepted);
  add_number(*sub, "--subblock-size", k->subblock_size, "Kraken 2's build blocks")
      ->group(accepted);
  add_number(*sub, "--minimum-bits-for-taxid", k->minimum_bits_for_taxid,
             "Kraken 2's hash table cells")
      ->group(accepted);
  const std::string own = "metawarp samples its own minimizers (metawarp build -k, -w, -s, --sampling)";
  refuse(*sub, "--kmer-len", own, true);
  refuse(*sub, "--minimizer-len", own, true);
  refuse(*sub, "--minimizer-spaces", own, true);
  refuse(*sub, "--max-db-size",
         "metawarp keeps the whole library; a database larger than memory is queried in parts "
         "(metawarp query --max-memory)",
         true);
  refuse(*sub, "--protein", "metawarp builds nucleotide databases only", false);
  const std::string fetch =
      "download with Kraken 2's own scripts or NCBI's tools into DIR/library and DIR/taxonomy "
      "(docs/databases.md), then --build";
  refuse(*sub, "--download-taxonomy", fetch, false);
  refuse(*sub, "--download-library", fetch, true);
  refuse(*sub, "--standard", fetch, false);
  refuse(*sub, "--special", fetch, true);
  refuse(*sub, "--add-to-library",
         "copy the file into DIR/library/ as NAME.fna (headers with kraken:taxid|N, or mapped "
         "by DIR/seqid2taxid.map or taxonomy/*.accession2taxid), then --build",
         true);
  refuse(*sub, "--clean",
         "nothing of metawarp's needs cleaning; DIR/library and DIR/taxonomy are yours to "
         "remove once DIR/metawarp.mwdb is built",
         false);
  sub->callback([k, sub] {
    if (!k->build)
      throw std::invalid_argument(
          "give the task: --build (the one task metawarp's kraken2-build does: "
          "DIR/metawarp.mwdb from DIR/library and DIR/taxonomy)");
    if (k->db.empty()) {
      const char* name = std::getenv("KRAKEN2_DB_NAME");
      if (!name || !*name)
        throw std::invalid_argument("give the database folder: --db DIR (or set KRAKEN2_DB_NAME)");
      k->db = name;
    }
    if (sub->count("--threads") == 0)
      k->metawarp.options.threads =
          threads_from_environment("KRAKEN2_THREAD_CT", 1, thread_ceiling);
    plan_build(*k);
    run_build(k->metawarp);
  });
}

}  // namespace metawarp::cli
