// `metawarp info DB`: what a database holds and what it costs.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include "cli/commands.hpp"
#include "cli/name_list.hpp"
#include "cli/number_options.hpp"
#include "cli/target_problems.hpp"
#include "db/database.hpp"
#include "db/file_format.hpp"
#include "db/metadata.hpp"
#include "db/stats.hpp"
#include "metawarp/sketch/host.hpp"
#include "pipeline/query/gpu_query.hpp"
#include "pipeline/shard_layout.hpp"
#include "report/kraken_report.hpp"
#include "taxonomy/gtdb.hpp"

namespace metawarp::cli {
namespace {

struct InfoCommand {
  std::string database;
  bool targets = false;
  bool unranked = false;
  bool taxa = false;  // --taxa: the taxa of a zero-count report
  // The layout to show the GPU query's bytes for (--gpus, --shards-per-gpu),
  // and the memory of each GPU to check them against (--gpu-memory).
  std::string gpus;
  unsigned shards_per_gpu = 1;
  std::uint64_t gpu_memory = 0;
};

std::string gib(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", double(bytes) / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

// The database is split by feature (docs/scale-out.md): any file loads onto
// any number of GPUs and shards, or streams through memory in partitions. For
// the layout asked, the bytes each GPU would hold (shards cut as the GPU
// query cuts them), and, against --gpu-memory, whether it fits or how many
// GPUs or partitions it needs.
void print_layout(const InfoCommand& cmd, const db::Database& database,
                  const db::DatabaseStats& st) {
  const auto& index = database.index;
  const std::uint64_t whole =
      pipeline::gpu_database_bytes(index.feature_count(), index.location_count(),
                                   database.targets.size());
  const double gbp = double(st.total_bases) / 1e9;
  std::printf("layout                by feature range: loads onto any number of GPUs and shards, "
              "or in partitions (docs/scale-out.md)\n");
  std::printf("memory (GPU query)    %s on one GPU (%.2f GiB per Gbp)\n", gib(whole).c_str(),
              gbp > 0 ? double(whole) / (1024.0 * 1024.0 * 1024.0) / gbp : 0.0);
  pipeline::ShardLayout layout;
  if (!cmd.gpus.empty()) layout.devices = pipeline::parse_gpu_list(cmd.gpus);
  layout.shards_per_gpu = cmd.shards_per_gpu;
  if (layout.shards() > 1) {
    const std::vector<std::uint64_t> cut =
        pipeline::balanced_cuts(std::span(index.offsets().data(), index.offsets().size()),
                                layout.shards());
    std::vector<std::uint64_t> per_gpu(layout.devices.size(),
                                       pipeline::gpu_per_device_bytes(database.targets.size(),
                                                                      layout.shards()));
    for (unsigned s = 0; s < layout.shards(); ++s)
      per_gpu[s / layout.shards_per_gpu] += pipeline::gpu_shard_bytes(
          cut[s + 1] - cut[s], index.offsets()[cut[s + 1]] - index.offsets()[cut[s]]);
    std::string line;
    for (std::size_t d = 0; d < per_gpu.size(); ++d)
      line += (d ? ", GPU " : "GPU ") + std::to_string(layout.devices[d]) + " " + gib(per_gpu[d]);
    std::printf("  on %s: %s\n", pipeline::describe(layout).c_str(), line.c_str());
    if (cmd.gpu_memory != 0) {
      const std::uint64_t largest = *std::max_element(per_gpu.begin(), per_gpu.end());
      std::printf("  with %s per GPU: %s\n", gib(cmd.gpu_memory).c_str(),
                  largest <= cmd.gpu_memory ? "fits" : "does not fit");
    }
  }
  if (cmd.gpu_memory != 0) {
    // GPUs of that size that hold it resident, balanced shards (one per GPU);
    // else the partitions one GPU streams it in.
    const std::uint64_t gpus = (whole + cmd.gpu_memory - 1) / cmd.gpu_memory;
    std::printf("resident with %s per GPU: %llu GPU%s (--gpus %llu); on one GPU: at least "
                "--partitions %llu\n",
                gib(cmd.gpu_memory).c_str(), (unsigned long long)gpus, gpus == 1 ? "" : "s",
                (unsigned long long)gpus, (unsigned long long)gpus);
  }
}

std::string mib(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / (1024.0 * 1024.0));
  return buf;
}

std::string bucket_label(const db::LengthBucket& b) {
  if (b.max_length == db::LengthBucket::open_end) return ">=" + std::to_string(b.min_length);
  if (b.min_length == b.max_length) return std::to_string(b.min_length);
  return std::to_string(b.min_length) + "-" + std::to_string(b.max_length);
}

// A target is ranked when its taxon is known and has a species above or at it.
bool is_ranked(const db::Database& database, const db::Target& t) {
  if (!has_taxon(database, t)) return false;
  return database.taxonomy.ranked_lineage(t.taxid).at(taxonomy::CanonicalRank::species) !=
         taxonomy::no_taxon;
}

std::string_view rank_of(const db::Database& database, taxonomy::taxid_t id) {
  const taxonomy::Node* node = database.taxonomy.find(id);
  return node ? taxonomy::rank_name(node->rank) : std::string_view("-");
}

void print_targets(const db::Database& database, bool only_unranked) {
  std::printf("#id\tname\taccession\ttaxid\trank\tlength\twindows\tfile\n");
  for (std::size_t i = 0; i < database.targets.size(); ++i) {
    const db::Target& t = database.targets[i];
    if (only_unranked && is_ranked(database, t)) continue;
    std::printf("%zu\t%s\t%s\t%u\t%.*s\t%llu\t%u\t%s\n", i, t.name.c_str(), t.accession.c_str(),
                t.taxid, int(rank_of(database, t.taxid).size()), rank_of(database, t.taxid).data(),
                (unsigned long long)t.length, t.windows, t.source_file.c_str());
  }
}

// Targets without a taxon and names given to several targets, by name, so a
// problem can be found without listing every target.
void print_problems(const InfoCommand& cmd, const db::Database& database,
                    const TargetProblems& problems) {
  if (!problems.without_taxon.empty()) {
    std::vector<std::string> names;
    for (std::size_t id : problems.without_taxon) {
      if (names.size() == listed_names) break;
      names.push_back(database.targets[id].name);
    }
    std::printf("without taxon         %zu: %s (`metawarp info %s --unranked` lists them all)\n",
                problems.without_taxon.size(),
                name_list(names, problems.without_taxon.size()).c_str(), cmd.database.c_str());
  }
  if (!problems.duplicate_names.empty()) {
    std::vector<std::string> names;
    for (const DuplicateName& duplicate : problems.duplicate_names) {
      if (names.size() == listed_names) break;
      std::string ids;
      for (std::size_t id : duplicate.targets) ids += (ids.empty() ? "" : ", ") + std::to_string(id);
      names.push_back(duplicate.name + " (targets " + ids + ")");
    }
    std::printf("duplicate names       %zu: %s\n", problems.duplicate_names.size(),
                name_list(names, problems.duplicate_names.size()).c_str());
  }
}

// Where the taxonomy came from, and what `query --report-zero-counts` lists
// (every taxon of the database, by rank code; `--taxa` prints them).
void print_taxonomy_source(const InfoCommand& cmd, const db::Database& database) {
  std::printf("taxonomy source       %s\n",
              std::string(taxonomy::taxonomy_source(database.taxonomy)).c_str());
  const std::vector<report::ReportLine> lines =
      report::report_lines(database.taxonomy, report::TaxonCounts{}, true);
  std::map<std::string, std::size_t> by_code;
  for (const report::ReportLine& line : lines)
    if (line.code != "U") ++by_code[line.code.substr(0, 1) + (line.code.size() > 1 ? "n" : "")];
  std::string codes;
  for (const char* code : {"R", "D", "K", "P", "C", "O", "F", "G", "S"})
    if (by_code.count(code)) codes += std::string(codes.empty() ? "" : ", ") + code + " " +
                                      std::to_string(by_code[code]);
  std::size_t other = 0;
  for (const auto& [code, count] : by_code)
    if (code.size() > 1) other += count;
  if (other) codes += ", other ranks (R1, S1, ...) " + std::to_string(other);
  std::printf("report taxa           %zu with --report-zero-counts (%s; `metawarp info %s "
              "--taxa` lists them)\n",
              lines.size() - 1, codes.c_str(), cmd.database.c_str());
}

// The taxa `query --report-zero-counts` lists, in its order: code, taxid, name.
void print_taxa(const db::Database& database) {
  std::printf("#code\ttaxid\tname\n");
  for (const report::ReportLine& line :
       report::report_lines(database.taxonomy, report::TaxonCounts{}, true))
    if (line.code != "U")
      std::printf("%s\t%u\t%s%s\n", line.code.c_str(), line.taxid,
                  std::string(2 * line.depth, ' ').c_str(), line.name.c_str());
}

// The file's format version and size per reference base (docs/database-format.md).
void print_file(const InfoCommand& cmd, const db::DatabaseStats& st) {
  const db::DatabaseMetadata meta = db::load_metadata(cmd.database);
  std::string layout;
  if (meta.version >= db::file_format::first_compact_version)
    layout = " (counts of " + std::to_string(meta.offsets.element_size) + " bytes, window ids of " +
             std::to_string(meta.locations.element_size) + " bytes)";
  else
    layout = " (offsets and locations of 8 bytes; `metawarp build` again writes version " +
             std::to_string(db::format_version) + ", smaller)";
  std::printf("file format           version %u%s\n", meta.version, layout.c_str());
  std::printf("file size             %s (%.2f bytes per base)\n", mib(meta.file_size).c_str(),
              st.total_bases == 0 ? 0.0 : double(meta.file_size) / double(st.total_bases));
}

void run_info(const InfoCommand& cmd) {
  const db::Database database = db::load(cmd.database);
  if (cmd.taxa) {
    print_taxa(database);
    return;
  }
  if (cmd.targets || cmd.unranked) {
    print_targets(database, !cmd.targets);
    return;
  }
  const db::DatabaseStats st = db::compute_stats(database);
  const auto& p = database.params;
  std::uint64_t unranked = 0;
  for (const auto& t : database.targets) unranked += !is_ranked(database, t);
  const TargetProblems problems = find_target_problems(database);
  std::printf("database              %s\n", cmd.database.c_str());
  print_file(cmd, st);
  std::printf("k-mer length          %u\n", p.sketch.k);
  std::printf("window length         %u (stride %u)\n", p.sketch.window, p.sketch.stride());
  std::printf("sketch size           %u%s\n", p.sketch.sketch_size,
              p.sketch.sampling == sketch::Sampling::window ? "" : " (at most, per window)");
  std::printf("sampling              %s\n", sketch::sampling_name(p.sketch).c_str());
  std::printf("max locations/feature %u%s\n", p.max_locations_per_feature,
              p.remove_overpopulated_features ? " (overpopulated features removed)" : "");
  std::printf("targets               %llu (%llu without taxon, %llu without species)\n",
              (unsigned long long)st.targets, (unsigned long long)problems.without_taxon.size(),
              (unsigned long long)unranked);
  print_problems(cmd, database, problems);
  std::printf("bases                 %llu\n", (unsigned long long)st.total_bases);
  std::printf("windows               %llu\n", (unsigned long long)st.total_windows);
  std::printf("features              %llu\n", (unsigned long long)st.features);
  std::printf("locations             %llu (mean %.2f per feature, longest list %llu, %llu at cap)\n",
              (unsigned long long)st.locations, st.mean_list_length,
              (unsigned long long)st.longest_list, (unsigned long long)st.features_at_cap);
  std::printf("taxonomy              %llu taxa, %llu merged ids\n",
              (unsigned long long)st.taxonomy_nodes, (unsigned long long)st.taxonomy_merged);
  print_taxonomy_source(cmd, database);
  std::printf("memory (host)         %s (index %s, lookup %s)\n", mib(st.memory_bytes).c_str(),
              mib(st.index_bytes).c_str(), mib(st.lookup_bytes).c_str());
  print_layout(cmd, database, st);
  std::printf("location-list length histogram:\n");
  for (const auto& b : st.histogram)
    std::printf("  %-10s %llu\n", bucket_label(b).c_str(), (unsigned long long)b.features);
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto cmd = std::make_shared<InfoCommand>();
  CLI::App* sub = app.add_subcommand("info", "Describe a database");
  sub->add_option("database", cmd->database, "Database file")->required()->check(CLI::ExistingFile);
  sub->add_flag("--targets", cmd->targets, "List every target");
  sub->add_flag("--taxa", cmd->taxa,
                "List the taxa of the database as `query --report-zero-counts` reports them");
  sub->add_flag("--unranked", cmd->unranked,
                "List targets without a taxon or without a species in their lineage");
  sub->add_option("--gpus", cmd->gpus,
                  "GPU memory per GPU for this layout: a number of GPUs or a device list (0,2)");
  add_number(*sub, "--shards-per-gpu", cmd->shards_per_gpu, "Shards per GPU for --gpus", 1u,
             pipeline::max_shards_per_gpu);
  add_size(*sub, "--gpu-memory", cmd->gpu_memory,
           "Memory of each GPU in bytes (suffixes K, M, G, T): how many GPUs or partitions the "
           "database needs");
  sub->callback([cmd] { run_info(*cmd); });
}

}  // namespace metawarp::cli
