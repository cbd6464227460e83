#pragma once
// A read-placement profile of a database (issue 27; docs/accuracy.md,
// "Abundances from read-placement profiles"): for every source genome of the
// database (its targets of one taxid), where reads of length L cut from it
// are assigned by the database's own classifier. It is the likelihood
// P(assigned taxon | source) behind query --abundance's estimate
// (report/profile_em.hpp). Built by pipeline/query/read_profile_build.hpp.
//
// Stored beside the database as text (`<database>.profile-L<L>` for single
// reads, `<database>.profile-L<L>-paired` for pairs), last line a checksum of
// everything before it:
//   #metawarp read-placement profile 3
//   database <format version> <file size> <features> <offsets> <locations> <targets>
//            (the three index sections' checksums in hex: the database's identity)
//   reads <L> <single|paired> <fragment length> <stride> <substitutions per million bases>
//   classifier <max_candidates> <hit_min> <hit_diff> <lowest> <highest>
//              <insert_size> <confidence_millionths> <minimum_hit_groups> <match_min>
//   (format 3: the matched-bases rule and pairs' automatic hit-min 2 with
//   content-defined sampling, issue 26; a format 2 profile's calls were made
//   without them, so it is refused and made again)
//   source <taxid> <reads cut> <assignments>   then that many lines:
//   <assigned taxid (0: unclassified)> <reads>
//   checksum <hex of db::checksum64 of the bytes before this line>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "db/metadata.hpp"
#include "taxonomy/taxonomy.hpp"

namespace metawarp::report {

using taxonomy::taxid_t;

// What identifies a database file, from its header (db::load_metadata): a
// profile of another database, or of an older build at the same path, does
// not match.
struct DatabaseIdentity {
  std::uint32_t version = 0;
  std::uint64_t file_size = 0;
  std::uint64_t features_checksum = 0, offsets_checksum = 0, locations_checksum = 0;
  std::uint64_t targets = 0;
  bool operator==(const DatabaseIdentity&) const = default;
};
DatabaseIdentity database_identity(const std::filesystem::path& database);
// The same from metadata already read.
DatabaseIdentity database_identity(const db::DatabaseMetadata& meta);

// How the reads of a profile were cut.
struct ProfileReads {
  std::uint32_t read_length = 150;     // L: each read, or each mate
  bool paired = false;                 // pairs: mates 1 and 2 of one fragment
  std::uint32_t fragment_length = 0;   // pairs: the fragment, >= 2L (0 for single reads)
  std::uint32_t stride = 1;            // a read every `stride` bases of each target
  // Sequencing errors the reads carry: each base substituted with this
  // probability (in millionths) by another, as errors of the sample's reads
  // make their calls less specific (pipeline/query/read_profile_build.hpp).
  std::uint32_t error_ppm = 0;
  bool operator==(const ProfileReads&) const = default;
};

// The classifier options the profile's reads were classified with (those
// that change a call), as the numbers of pipeline::ClassifierOptions.
struct ProfileClassifier {
  std::uint32_t max_candidates = 0, hit_min = 0, hit_diff = 0, lowest = 0, highest = 0;
  std::uint64_t insert_size = 0;
  std::uint32_t confidence_millionths = 0, minimum_hit_groups = 0;
  std::uint32_t match_min = 0;
  bool operator==(const ProfileClassifier&) const = default;
};

struct ProfileSource {
  taxid_t taxid = taxonomy::no_taxon;  // the targets' taxid
  std::uint64_t reads = 0;             // reads (pairs) cut from its targets
  // (assigned taxid, reads), by taxid; taxid 0: unclassified.
  std::vector<std::pair<taxid_t, std::uint64_t>> assigned;
  bool operator==(const ProfileSource&) const = default;
};

struct ReadProfile {
  DatabaseIdentity database;
  ProfileReads reads;
  ProfileClassifier classifier;
  std::vector<ProfileSource> sources;  // by taxid
  bool operator==(const ReadProfile&) const = default;
};

// The file's name beside `database` for these reads.
std::filesystem::path profile_path(const std::filesystem::path& database, const ProfileReads& reads);

std::string profile_text(const ReadProfile& profile);
// Throws std::runtime_error "profile '<path>': <problem>" for a file that is
// not a profile, one of another format version (an older metawarp's),
// damaged (checksum) or truncated.
ReadProfile parse_profile(const std::string& text, const std::string& path);
ReadProfile read_profile_file(const std::filesystem::path& path);

// The profiles beside `database` (files named <database>.profile-L*), each
// checked against the database's identity: one of another database (or an
// older build) is refused with std::runtime_error naming it and the command
// that rebuilds it. Sorted by path.
std::vector<ReadProfile> load_profiles(const std::filesystem::path& database);

// The profile for a sample: of its layout (pairs or single reads), the read
// length nearest `mean_read_length` (ties: the shorter); nullptr when none is
// of that layout.
const ReadProfile* nearest_profile(const std::vector<ReadProfile>& profiles, bool paired,
                                   double mean_read_length);

}  // namespace metawarp::report
