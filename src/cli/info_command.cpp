// `metawarp info DB`: what a database holds and what it costs.
#include <cstdio>
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/name_list.hpp"
#include "cli/target_problems.hpp"
#include "db/database.hpp"
#include "db/stats.hpp"
#include "pipeline/gpu_query.hpp"

namespace metawarp::cli {
namespace {

struct InfoCommand {
  std::string database;
  bool targets = false;
  bool unranked = false;
};

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

void run_info(const InfoCommand& cmd) {
  const db::Database database = db::load(cmd.database);
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
  std::printf("file size             %s\n", mib(std::filesystem::file_size(cmd.database)).c_str());
  std::printf("k-mer length          %u\n", p.sketch.k);
  std::printf("window length         %u (stride %u)\n", p.sketch.window, p.sketch.stride());
  std::printf("sketch size           %u\n", p.sketch.sketch_size);
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
  std::printf("memory (host)         %s (index %s, lookup %s)\n", mib(st.memory_bytes).c_str(),
              mib(st.index_bytes).c_str(), mib(st.lookup_bytes).c_str());
  std::printf("memory (GPU query)    %s\n", mib(pipeline::gpu_database_bytes(database)).c_str());
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
  sub->add_flag("--unranked", cmd->unranked,
                "List targets without a taxon or without a species in their lineage");
  sub->callback([cmd] { run_info(*cmd); });
}

}  // namespace metawarp::cli
