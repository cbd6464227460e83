#pragma once
// The database: build parameters, reference targets, the embedded taxonomy
// subset, and for each feature its sorted, capped list of locations.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "metawarp/host/large_vector.hpp"
#include "metawarp/index/cap_rule.hpp"
#include "metawarp/sketch/types.hpp"
#include "output/sync.hpp"
#include "taxonomy/taxonomy.hpp"

namespace metawarp::db {

using sketch::feature_t;
using sketch::Location;
using taxonomy::taxid_t;

struct DatabaseParams {
  sketch::SketchParams sketch;
  // At most this many locations per feature: the smallest (target, window) pairs.
  std::uint32_t max_locations_per_feature = 254;
  // When true, features that had MORE distinct locations than the cap (before
  // capping) are removed entirely (they say little about where a read comes from).
  bool remove_overpopulated_features = false;

  index::CapRule cap_rule() const {
    return index::CapRule{max_locations_per_feature, remove_overpopulated_features};
  }
};

struct Target {
  std::string name;         // sequence id (header up to first whitespace)
  std::string accession;    // accession.version if recognisable, else the name
  taxid_t taxid = taxonomy::no_taxon;  // no_taxon: unmapped
  std::uint64_t length = 0;            // bases
  std::uint32_t windows = 0;           // number of windows
  std::string source_file;             // file the record came from (as given)
};

// One raw (feature, location) occurrence as produced by sketching.
struct Entry {
  feature_t feature;
  Location location;
};

// The index's arrays: std::vectors whose resize() does not zero (gigabytes
// are filled by several threads right after; metawarp/host/large_vector.hpp).
template <class T>
using IndexArray = host::LargeVector<T>;

// The query layout: features sorted ascending; locations of features[i] are
// locations[offsets[i] .. offsets[i+1]), sorted by (target, window).
class FeatureIndex {
 public:
  FeatureIndex() : offsets_(1, 0) {}  // empty: no features, offsets {0}
  // Throws std::invalid_argument unless features are strictly ascending,
  // offsets has features+1 non-decreasing entries from 0 to locations.size().
  FeatureIndex(IndexArray<feature_t> features, IndexArray<std::uint64_t> offsets,
               IndexArray<Location> locations);
  // Moves leave an index behind that holds nothing and finds nothing (not
  // even the offset {0} of an empty index: assign it a new one before saving).
  FeatureIndex(FeatureIndex&& other) noexcept;
  FeatureIndex& operator=(FeatureIndex&& other) noexcept;

  // Empty span when the feature is absent. O(1) expected, thread-safe for
  // concurrent readers. The hash lookup behind it is built on the first
  // lookup (or by prepare_lookup()), not on construction: a build writes the
  // index without looking anything up, and the GPU query has its own.
  std::span<const Location> find(feature_t f) const;
  // Builds the lookup now (a no-op once built), so that its cost is paid
  // up front rather than by the first lookup.
  void prepare_lookup() const { lookup(); }
  // find() for n features at once: out[i] = find(features[i]). Issues the
  // memory loads of all features before using any (software prefetch in
  // stages: slot, offsets, list start), so the cache misses of one read's
  // lookups overlap instead of following one another.
  void find_many(const feature_t* features, std::size_t n, std::span<const Location>* out) const;
  // find() in three steps, for callers that overlap the memory loads of many
  // lookups: prefetch(f) starts loading f's slot; probe(f) returns a handle
  // (0: absent) and starts loading the list's first locations; list(handle)
  // returns the locations (= find(f)).
  void prefetch(feature_t f) const;
  std::uint64_t probe(feature_t f) const;
  std::span<const Location> list(std::uint64_t handle) const;

  std::size_t feature_count() const { return features_.size(); }
  std::size_t location_count() const { return locations_.size(); }
  const IndexArray<feature_t>& features() const { return features_; }
  const IndexArray<std::uint64_t>& offsets() const { return offsets_; }
  const IndexArray<Location>& locations() const { return locations_; }
  // Bytes the open-addressing lookup takes once built (for `info`).
  std::size_t lookup_bytes() const { return lookup_bytes_for(features_.size()); }
  // The same for an index of `features` features (the partitioned query's
  // memory budget, db/partial_load.hpp).
  static std::size_t lookup_bytes_for(std::size_t features);

  friend bool operator==(const FeatureIndex& a, const FeatureIndex& b) {
    return a.features_ == b.features_ && a.offsets_ == b.offsets_ &&
           a.locations_ == b.locations_;
  }

 private:
  // Open addressing, two words per slot: (feature << 32 | list length), 0 =
  // empty; then the list's offset into locations_.
  struct Lookup {
    std::once_flag once;
    std::atomic<bool> built{false};
    IndexArray<std::uint64_t> slots;
    std::uint64_t mask = 0;
  };
  // The built lookup (building it on first use); a moved-from index has none.
  const Lookup& lookup() const {
    if (!lookup_) return empty_lookup();
    if (!lookup_->built.load(std::memory_order_acquire)) build_lookup();
    return *lookup_;
  }
  static const Lookup& empty_lookup();
  void build_lookup() const;
  void check_consistency() const;

  IndexArray<feature_t> features_;
  IndexArray<std::uint64_t> offsets_;
  IndexArray<Location> locations_;
  std::unique_ptr<Lookup> lookup_ = std::make_unique<Lookup>();
};

// Sorts entries by (feature, target, window), drops exact duplicates, applies
// the cap rule (and optional removal), using up to `threads` threads. The
// result does not depend on the order of `entries` or on `threads`.
// Cap rule: a feature keeps its max_locations_per_feature smallest distinct
// (target, window) locations; with remove_overpopulated_features, a feature
// that had more distinct locations than that is dropped entirely.
// Throws std::invalid_argument if max_locations_per_feature is 0.
// Pass `entries` with std::move to avoid a copy: it is freed once its entries
// have been moved into bucket order (8 bytes each when (feature, target,
// window) pack into 64 bits, else 12); peak memory is about the entries, that
// copy and the result.
FeatureIndex finalize(std::vector<Entry> entries, const DatabaseParams& params,
                      unsigned threads);

// Entries held as several arrays, e.g. what one sketching worker produced.
using EntryChunks = std::vector<std::vector<Entry>>;
// The same result as finalize() on all the entries concatenated, without the
// concatenation: each part is counted and scattered by its own thread, and
// the input is freed as soon as it has been scattered.
FeatureIndex finalize_chunks(std::vector<EntryChunks> parts, const DatabaseParams& params,
                             unsigned threads);

struct Database {
  DatabaseParams params;
  std::vector<Target> targets;   // target id = position
  taxonomy::Taxonomy taxonomy;   // subset: targets' taxa and their ancestors
  FeatureIndex index;
};

// Current file format version (docs/database-format.md); load() accepts <= this.
// Version 2: section checksums over 1 MiB chunks (checked on all cores).
// Version 3: the sampling in the header (file_format.hpp).
// Version 4: the compact index (counts and global window ids, compact_index.hpp).
inline constexpr std::uint32_t format_version = 4;

// Writes the database atomically (output/atomic_file.hpp): `path` must be a
// new path or a regular file to replace (symlinks followed); the bytes go to
// a temporary next to it, are fsynced and renamed over it (the folder fsynced
// too), keeping a replaced file's mode. A failure removes the temporary and
// keeps the file that was there. Throws std::runtime_error naming the path.
// The sections are checksummed and written by `threads` threads (0: all
// cores) at their offsets; the bytes do not depend on `threads`.
// `sync`: output::Sync::when_replacing skips the fsyncs where no file is
// replaced (docs/reliability.md says what that guarantees).
void save(const Database& db, const std::filesystem::path& path, unsigned threads = 0,
          output::Sync sync = output::Sync::always);
// What load() shows of the index arrays while it reads them, so that they can
// go on (to a GPU) at the same time. Called from the reading threads, at once.
class IndexReadObserver {
 public:
  enum class Array { features, offsets, locations };
  virtual ~IndexReadObserver() = default;
  // Once, before sizes(): the targets (e.g. to convert locations on the fly).
  virtual void targets(std::span<const Target> /*targets*/) {}
  // Once, before any chunk: the number of features (offsets: one more) and
  // of locations.
  virtual void sizes(std::uint64_t features, std::uint64_t locations) = 0;
  // Bytes [begin, begin + bytes) of `array` are read, at `data` (valid until
  // load() returns). Not yet checked: when load() throws, nothing it showed
  // may be used.
  virtual void chunk(Array array, std::uint64_t begin, const void* data, std::size_t bytes) = 0;
};

// Validates magic, version, sizes and checksums; throws std::runtime_error
// saying what is wrong (truncated, corrupted, not a metawarp database, newer
// version). Reads and checks with `threads` threads (0: all cores); the
// result does not depend on `threads`. `observer`, when given, sees the
// index arrays as they are read.
Database load(const std::filesystem::path& path, unsigned threads = 0,
              IndexReadObserver* observer = nullptr);

}  // namespace metawarp::db
