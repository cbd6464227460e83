#pragma once
// Reading a database's index part by part, for a query over a database that
// does not fit in memory at once (docs/architecture.md "The partitioned
// query"). A database file of any format version can be read this way.
//
// A part is a contiguous run of the sorted features: its features, its
// offsets (rebased to 0) and the slice of locations they point to. Features
// ascend, so the parts of a plan, concatenated in order, are the whole index,
// byte for byte, and each part holds one range of feature values
// (index::FeatureRange; the ranges of a plan tile [0, 2^32)).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

#include "db/database.hpp"
#include "db/file_format.hpp"
#include "db/metadata.hpp"
#include "metawarp/index/feature_range.hpp"
#include "output/file_descriptor.hpp"

namespace metawarp::db {

struct IndexPart {
  std::uint64_t first_feature = 0, last_feature = 0;    // feature positions [first, last)
  std::uint64_t first_location = 0, last_location = 0;  // their locations [first, last)
  index::FeatureRange range;  // the feature values this part may hold

  std::uint64_t features() const { return last_feature - first_feature; }
  std::uint64_t locations() const { return last_location - first_location; }
};

// Bytes an index of `features` features and `locations` locations takes in
// memory once loaded, with its lookup: what a part's byte budget bounds.
std::uint64_t index_bytes(std::uint64_t features, std::uint64_t locations);

// A database file open for reading part by part. Thread-safe for concurrent
// load_part() and plans (const: pread on one descriptor).
class PartialDatabase {
 public:
  // Reads the header, targets and taxonomy (load_metadata), then streams the
  // index sections once through a bounded buffer with `threads` threads (0:
  // all cores), checking what load() checks (section checksums, zero padding,
  // features ascending, offsets spanning the locations, every location inside
  // its target's windows) with load()'s messages. Keeps the checksum of every
  // 1 MiB chunk (8 bytes per MiB), so that a part read later is verified
  // chunk by chunk. Throws std::runtime_error "database '<path>': <problem>".
  explicit PartialDatabase(const std::filesystem::path& path, unsigned threads = 0);

  // Parameters, targets and taxonomy; the index is empty.
  const Database& metadata() const { return meta_.db; }
  const std::filesystem::path& path() const { return path_; }
  std::uint64_t feature_count() const { return features_.info.count; }
  std::uint64_t location_count() const { return locations_.info.count; }
  // The locations of the feature with the most (0 for an empty index): a
  // part holds at least one feature's whole list.
  std::uint64_t longest_list() const { return longest_list_; }

  // Parts of at most `max_bytes` each (index_bytes()), cut in feature order
  // where the next feature would not fit. Throws std::runtime_error, naming
  // the least budget that works, when one feature's locations alone exceed it.
  // An empty index gives one empty part.
  std::vector<IndexPart> plan_by_bytes(std::uint64_t max_bytes) const;
  // `parts` parts of about equal bytes (fewer when the index has fewer
  // features; one empty part for an empty index). Throws std::invalid_argument for 0.
  std::vector<IndexPart> plan_parts(std::size_t parts) const;

  // The index of one part of a plan: only the checksum chunks the part touches
  // are read (pread, `threads` threads, 0: all cores), each checked against
  // the checksum it had when this object read the file: a chunk damaged or
  // changed since is an error naming the file and the section.
  FeatureIndex load_part(const IndexPart& part, unsigned threads = 0) const;

 private:
  struct Section {
    IndexSectionInfo info;
    std::string_view name;
    std::vector<std::uint64_t> chunk_sums;  // checksum64 per 1 MiB chunk
  };
  template <class T, class Check>
  void stream_section(Section& section, unsigned threads, Check check);
  // Bytes [begin, end) of a section into dst, each chunk verified.
  void read_verified(const Section& section, std::uint64_t begin, std::uint64_t end, void* dst,
                     unsigned threads) const;
  // Chunk c of a section, whole, into `into`: false where it cannot be read;
  // `matches` says whether its checksum is the recorded one.
  bool read_chunk(const Section& section, std::uint64_t c, char* into, bool& matches) const;
  // The error for an unreadable section, or for a checksum mismatch in chunk c.
  [[noreturn]] void throw_unreadable(const Section& section) const;
  [[noreturn]] void throw_mismatch(const Section& section, std::uint64_t c) const;
  // Format version 4: counts and global window ids (compact_index.hpp).
  bool compact() const { return meta_.version >= file_format::first_compact_version; }
  void stream_offsets_and_locations(unsigned threads);
  void stream_compact(unsigned threads);
  void read_compact_part(const IndexPart& part, std::uint64_t* offsets, Location* locations,
                         unsigned threads) const;
  // The features' list lengths a window at a time, streaming the offsets
  // (or counts): visit(first, n, locations, each) for every window in order,
  // with its first feature, its n features and their locations in all;
  // each(f) calls f(feature, locations of it) for the window's features in
  // order, for a visitor that needs them one by one (a plan's cuts fall in
  // a few windows: the others are passed whole).
  template <class Visit>
  void for_each_length_window(Visit visit) const;
  // The parts ending before each of `cuts` (feature positions, ascending,
  // the last = feature_count()), with their locations and ranges.
  std::vector<IndexPart> parts_at(const std::vector<std::uint64_t>& cut_features,
                                  const std::vector<std::uint64_t>& cut_locations) const;

  std::filesystem::path path_;
  DatabaseMetadata meta_;
  output::FileDescriptor file_;
  Section features_, offsets_, locations_;
  std::uint64_t longest_list_ = 0;
};

}  // namespace metawarp::db
