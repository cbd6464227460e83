#include "pipeline/query/read_profile_build.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "io/parse/sequence_reader.hpp"
#include "metawarp/hash/fmix.hpp"
#include "metawarp/host/thread_group.hpp"
#include "metawarp/sketch/encoding.hpp"
#include "output/atomic_file.hpp"

namespace metawarp::pipeline {

namespace {

// Records are classified in rounds of about this many bases, so that memory
// stays bounded with large reference files while every thread has work.
constexpr std::uint64_t round_bases = std::uint64_t(64) << 20;

// A target's sequence in this round, with its source and its index in the
// database (which seeds its reads' errors).
struct RoundTarget {
  std::string sequence;
  std::uint32_t source = 0;
  std::uint32_t target = 0;
};

// Sequencing errors: base b of mate `mate` of the read starting at
// `start` of target `target` is substituted with probability error_ppm / 10^6
// by one of the three other bases, both drawn from a hash of those four
// numbers: independent between reads and bases like a sequencer's errors, and
// the same whatever thread, batch or device classifies the read.
void add_errors(char* bases, std::uint32_t length, std::uint32_t error_ppm,
                std::uint32_t target, std::uint64_t start, std::uint32_t mate) {
  static constexpr char others[4][3] = {{'C', 'G', 'T'}, {'A', 'G', 'T'}, {'A', 'C', 'T'},
                                        {'A', 'C', 'G'}};
  const std::uint64_t read = hash::fmix64(hash::fmix64((std::uint64_t(target) << 1 | mate) ^
                                                       0x9e3779b97f4a7c15ull) ^ start);
  for (std::uint32_t b = 0; b < length; ++b) {
    const std::uint64_t h = hash::fmix64(read + b);
    if (h % 1000000 >= error_ppm) continue;
    const std::uint8_t code = sketch::encode_base(bases[b]);
    if (code < 4) bases[b] = others[code][(h / 1000000) % 3];
  }
}

// Reads [first, first + count) of one round target.
struct Segment {
  std::uint32_t target = 0;
  std::uint64_t first = 0, count = 0;
};
// A job: one engine call of at most batch_size reads, short targets packed
// together (a partitioned engine walks every part once per call).
using Job = std::vector<Segment>;

// Per source: reads per assigned taxid.
using Tally = std::vector<std::map<taxonomy::taxid_t, std::uint64_t>>;

class ProfileBuilder {
 public:
  ProfileBuilder(const QueryEngine& engine, const ProfileBuildOptions& options,
                 std::size_t sources)
      : engine_(engine),
        options_(options),
        span_(options.reads.paired ? options.reads.fragment_length : options.reads.read_length),
        classifiers_(std::max(1u, options.threads)),
        tallies_(classifiers_.size(), Tally(sources)) {}

  std::uint64_t reads_of(std::uint64_t length) const {
    return length < span_ ? 0 : (length - span_) / options_.reads.stride + 1;
  }

  // Classifies every read of the round's targets on the threads.
  void run(const std::vector<RoundTarget>& targets) {
    std::vector<Job> jobs(1);
    std::uint64_t in_job = 0;
    for (std::uint32_t t = 0; t < targets.size(); ++t) {
      const std::uint64_t reads = reads_of(targets[t].sequence.size());
      for (std::uint64_t first = 0; first < reads;) {
        if (in_job == options_.batch_size) {
          jobs.emplace_back();
          in_job = 0;
        }
        const std::uint64_t count = std::min<std::uint64_t>(options_.batch_size - in_job,
                                                            reads - first);
        jobs.back().push_back({t, first, count});
        first += count;
        in_job += count;
      }
    }
    std::atomic<std::size_t> next{0};
    host::ThreadGroup group;
    for (std::size_t w = 0; w < classifiers_.size(); ++w)
      group.spawn([&, w] {
        for (std::size_t j; (j = next.fetch_add(1)) < jobs.size() && !group.stopped();)
          classify(targets, jobs[j], w);
      });
    group.join();
  }

  Tally merged() const {
    Tally all(tallies_[0].size());
    for (const Tally& tally : tallies_)
      for (std::size_t s = 0; s < tally.size(); ++s)
        for (const auto& [taxid, reads] : tally[s]) all[s][taxid] += reads;
    return all;
  }

 private:
  void classify(const std::vector<RoundTarget>& targets, const Job& job, std::size_t worker) {
    std::uint64_t count = 0;
    for (const Segment& segment : job) count += segment.count;
    if (count == 0) return;  // a round without reads
    auto& classifier = classifiers_[worker];
    if (!classifier) classifier = engine_.make_classifier();
    const std::uint32_t length = options_.reads.read_length;
    std::vector<ReadView> reads(count);
    // Mates 1 are views of the target unless they carry errors.
    std::string mates1, mates2;
    if (options_.reads.error_ppm > 0) mates1.resize(count * length);
    if (options_.reads.paired) mates2.resize(count * length);
    std::uint64_t i = 0;
    for (const Segment& segment : job) {
      const RoundTarget& target = targets[segment.target];
      for (std::uint64_t k = 0; k < segment.count; ++k, ++i)
        cut_read(target, (segment.first + k) * options_.reads.stride, i, mates1, mates2,
                 reads[i]);
    }
    std::vector<ReadResult> results(count);
    classifier->classify(reads, results);
    i = 0;
    for (const Segment& segment : job) {
      auto& tally = tallies_[worker][targets[segment.target].source];
      for (std::uint64_t k = 0; k < segment.count; ++k, ++i) ++tally[results[i].assignment.taxid];
    }
  }

  // Read i of a job, starting at `start` of the target (mates in the job's
  // buffers).
  void cut_read(const RoundTarget& target, std::uint64_t start, std::uint64_t i,
                std::string& mates1, std::string& mates2, ReadView& read) const {
    const std::uint32_t length = options_.reads.read_length;
    const std::uint32_t error_ppm = options_.reads.error_ppm;
    const std::string_view sequence = target.sequence;
    read.mate1 = sequence.substr(start, length);
    if (error_ppm > 0) {
      char* mate1 = mates1.data() + i * length;
      read.mate1.copy(mate1, length);
      add_errors(mate1, length, error_ppm, target.target, start, 0);
      read.mate1 = std::string_view(mate1, length);
    }
    if (!options_.reads.paired) return;
    // Mate 2 reads the fragment's other end on the other strand.
    const std::string_view end = sequence.substr(start + span_ - length, length);
    char* mate2 = mates2.data() + i * length;
    for (std::uint32_t b = 0; b < length; ++b)
      mate2[b] = sketch::complement_base(end[length - 1 - b]);
    if (error_ppm > 0) add_errors(mate2, length, error_ppm, target.target, start, 1);
    read.mate2 = std::string_view(mate2, length);
  }

  const QueryEngine& engine_;
  const ProfileBuildOptions& options_;
  std::uint64_t span_;
  std::vector<std::unique_ptr<BatchClassifier>> classifiers_;
  std::vector<Tally> tallies_;
};

void check_reads(const report::ProfileReads& r) {
  if (r.read_length == 0) throw std::invalid_argument("--read-length must be at least 1");
  if (r.stride == 0) throw std::invalid_argument("--stride must be at least 1");
  if (r.error_ppm >= 1000000) throw std::invalid_argument("--error-rate must be below 1");
  if (r.paired && r.fragment_length < 2 * std::uint64_t(r.read_length))
    throw std::invalid_argument("--fragment-length " + std::to_string(r.fragment_length) +
                                " is shorter than two mates of --read-length " +
                                std::to_string(r.read_length));
}

}  // namespace

report::ProfileClassifier profile_classifier(const ClassifierOptions& o) {
  return {o.max_candidates,   o.hit_min,     o.hit_diff,
          std::uint32_t(o.lowest), std::uint32_t(o.highest), o.insert_size,
          o.confidence_millionths, o.minimum_hit_groups, o.match_min};
}

report::ReadProfile build_read_profile(const db::Database& db,
                                       const report::DatabaseIdentity& identity,
                                       const QueryEngine& engine,
                                       const ClassifierOptions& classifier,
                                       const ProfileBuildOptions& options) {
  check_reads(options.reads);
  report::ReadProfile profile;
  profile.database = identity;
  profile.reads = options.reads;
  if (!options.reads.paired) profile.reads.fragment_length = 0;
  profile.classifier = profile_classifier(classifier);

  // Sources: the targets' taxa (merged ids resolved), by taxid; targets
  // without a taxon have none (no abundance can name them).
  std::map<taxonomy::taxid_t, std::uint32_t> source_of;
  for (const db::Target& t : db.targets) {
    const taxonomy::taxid_t taxid = db.taxonomy.resolve(t.taxid);
    if (taxid != taxonomy::no_taxon) source_of.emplace(taxid, 0);
  }
  for (auto& [taxid, index] : source_of) {
    index = std::uint32_t(profile.sources.size());
    profile.sources.push_back({taxid, 0, {}});
  }

  // The targets of each reference file, by name, files in target order.
  std::vector<std::string> files;
  std::map<std::string, std::unordered_map<std::string, std::uint32_t>> targets_of;
  for (std::uint32_t t = 0; t < db.targets.size(); ++t) {
    const db::Target& target = db.targets[t];
    if (db.taxonomy.resolve(target.taxid) == taxonomy::no_taxon) continue;
    auto [it, added] = targets_of.try_emplace(target.source_file);
    if (added) files.push_back(target.source_file);
    it->second.emplace(target.name, t);
  }

  ProfileBuilder builder(engine, options, profile.sources.size());
  std::vector<RoundTarget> round;
  std::uint64_t round_size = 0;
  for (const std::string& file : files) {
    auto& names = targets_of[file];
    io::SequenceReader reader(file);
    io::SequenceRecord record;
    while (reader.next(record)) {
      const auto found = names.find(std::string(record.id()));
      if (found == names.end()) continue;  // a record the build left out
      const db::Target& target = db.targets[found->second];
      if (record.sequence.size() != target.length)
        throw std::runtime_error("reference '" + file + "' record '" + target.name + "': " +
                                 std::to_string(record.sequence.size()) +
                                 " bases, the database's target has " +
                                 std::to_string(target.length) +
                                 ": the file changed since the database was built");
      const std::uint32_t source = source_of.at(db.taxonomy.resolve(target.taxid));
      profile.sources[source].reads += builder.reads_of(record.sequence.size());
      round_size += record.sequence.size();
      round.push_back({std::move(record.sequence), source, found->second});
      names.erase(found);
      if (round_size >= round_bases) {
        builder.run(round);
        round.clear();
        round_size = 0;
      }
    }
    if (!names.empty())
      throw std::runtime_error("reference '" + file + "' has no record '" +
                               names.begin()->first +
                               "' (a target of the database): the file changed since the "
                               "database was built");
  }
  builder.run(round);

  const Tally tally = builder.merged();
  for (std::size_t s = 0; s < profile.sources.size(); ++s)
    profile.sources[s].assigned.assign(tally[s].begin(), tally[s].end());
  return profile;
}

std::filesystem::path save_read_profile(const report::ReadProfile& profile,
                                        const std::filesystem::path& database) {
  const std::filesystem::path path = report::profile_path(database, profile.reads);
  output::AtomicFile file(path.string(), output::OnFailure::keep_existing, "profile");
  file.write(report::profile_text(profile));
  file.commit();
  return path;
}

}  // namespace metawarp::pipeline
