// load(): read and validate a database file (docs/database-format.md). Every
// check names the problem, and load() puts the file's name in front of it, in
// that one place; the big arrays are read straight into their vectors, by all
// cores, each core checking the checksum chunks it read (parallel_read.hpp).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>

#include "db/bytes.hpp"
#include "db/checksum.hpp"
#include "db/compact_index.hpp"
#include "db/database.hpp"
#include "db/file_format.hpp"
#include "db/metadata.hpp"
#include "db/parallel_read.hpp"
#include "metawarp/host/large_vector.hpp"
#include "metawarp/host/parallel_for.hpp"
#include "metawarp/sketch/sketch.hpp"
#include "output/file_descriptor.hpp"
#include "output/file_kind.hpp"

namespace metawarp::db {
namespace {

namespace ff = file_format;

struct SectionEntry {
  ff::SectionId id;
  std::uint32_t element_size;
  std::uint64_t offset;
  std::uint64_t bytes;
  std::uint64_t count;
  std::uint64_t checksum;
};

class Reader {
 public:
  Reader(const std::filesystem::path& path, unsigned threads) : threads_(threads) {
    // Before it is opened: opening a FIFO waits for a writer, and the file is
    // read in place, several times (checksums, parts), which only a regular
    // file allows.
    struct stat kind {};
    if (::stat(path.c_str(), &kind) != 0)
      fail(errno == ENOENT ? "no such file" : std::string("cannot open: ") + std::strerror(errno));
    if (!S_ISREG(kind.st_mode)) fail(output::file_kind(kind) + ", not a database file");
    file_ = output::FileDescriptor(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!file_.is_open()) fail(std::string("cannot open: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(file_.get(), &st) != 0)
      fail(std::string("cannot determine file size: ") + std::strerror(errno));
    size_ = std::uint64_t(st.st_size);
  }

  // The file's name is added by load(), for this and every other error.
  [[noreturn]] void fail(const std::string& problem) const { throw std::runtime_error(problem); }

  std::uint64_t size() const { return size_; }

  // Reads up to n bytes at `offset`; returns how many were read.
  std::size_t read_some(void* dst, std::size_t n, std::uint64_t offset) {
    auto* out = static_cast<char*>(dst);
    std::size_t done = 0;
    while (done < n) {
      const ssize_t got = ::pread(file_.get(), out + done, n - done, off_t(offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) break;
      done += std::size_t(got);
    }
    return done;
  }
  void read_exact(void* dst, std::size_t n, std::uint64_t offset, std::string_view what) {
    if (read_some(dst, n, offset) != n)
      fail("truncated or unreadable while reading " + std::string(what));
  }

  // A section stored encoded (version 4), by all cores: decode(begin, bytes,
  // size) sees each checksum chunk; returns the section's checksum.
  std::uint64_t read_decoding(std::size_t n, std::uint64_t offset, std::string_view what,
                              const ChunkDecoder& decode) {
    const auto sum = read_chunked_through(file_.get(), offset, n, threads_, decode);
    if (!sum) fail("truncated or unreadable while reading " + std::string(what));
    return *sum;
  }
  unsigned threads() const { return threads_; }

  // read_exact() of a section's bytes, by all cores; returns their checksum
  // as the file's format version defines it. `on_chunk` sees every checksum
  // chunk of dst (version 1: after the whole section is read).
  std::uint64_t read_checksummed(void* dst, std::size_t n, std::uint64_t offset,
                                 std::uint32_t version, std::string_view what,
                                 const ChunkVisitor& on_chunk) {
    if (version >= ff::first_chunked_checksum_version) {
      const auto sum = read_chunked(file_.get(), offset, dst, n, threads_, on_chunk);
      if (!sum) fail("truncated or unreadable while reading " + std::string(what));
      return *sum;
    }
    const auto sum = read_and_checksum(file_.get(), offset, dst, n);
    if (!sum) fail("truncated or unreadable while reading " + std::string(what));
    if (on_chunk) {
      constexpr std::size_t chunk = ff::checksum_chunk_bytes;
      const std::size_t chunks = checksum_chunk_count(n);
      host::parallel_ranges(chunks, threads_ == 0 ? host::parts_for(chunks, 1)
                                                  : std::min<std::size_t>(threads_, chunks),
                            [&](std::size_t first, std::size_t last) {
        for (std::size_t c = first; c < last; ++c) on_chunk(c * chunk, std::min(n, (c + 1) * chunk));
      });
    }
    return *sum;
  }

 private:
  output::FileDescriptor file_;
  std::uint64_t size_ = 0;
  unsigned threads_;
};

std::uint32_t u32_at(const char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// After a section's payload: its zero padding and its checksum.
void check_section_end(Reader& in, std::uint32_t version, const SectionEntry& s,
                       std::uint64_t checksum) {
  const std::string name(ff::section_name(s.id, version));
  char padding[ff::alignment] = {};
  const std::size_t pad = ff::padded(s.bytes) - s.bytes;
  in.read_exact(padding, pad, s.offset + s.bytes, "section '" + name + "'");
  for (std::size_t i = 0; i < pad; ++i)
    if (padding[i] != 0) in.fail("corrupted: non-zero padding after section '" + name + "'");
  if (checksum != s.checksum)
    in.fail("checksum mismatch in section '" + name + "' (the file is corrupted)");
}

// Reads a section's payload into `out` (resized to count elements of T or to
// its byte size for T = char), checks its checksum and zero padding.
// `on_chunk` sees each checksum chunk of the payload once it is read.
template <class T>
void read_section(Reader& in, std::uint32_t version, const SectionEntry& s, IndexArray<T>& out,
                  const ChunkVisitor& on_chunk = {}) {
  const std::string name(ff::section_name(s.id, version));
  // Not zeroed first: the readers' writes fault the pages in, on all cores.
  out = host::make_uninitialized_large_vector<T>(sizeof(T) == 1 ? s.bytes : s.count);
  const std::uint64_t checksum =
      in.read_checksummed(out.data(), s.bytes, s.offset, version, "section '" + name + "'",
                          on_chunk);
  check_section_end(in, version, s, checksum);
}

// The build parameters, every field of them checked: a hand-made file can
// carry valid checksums over any value. Each problem names the field.
DatabaseParams read_params(Reader& in, const char* h, std::uint32_t version) {
  const auto refuse = [&in](const std::string& field, std::uint32_t value,
                            const std::string& rule) {
    in.fail("header field " + field + " is " + std::to_string(value) + ": " + rule);
  };
  if (u32_at(h + 16) != ff::hash_function_id)
    refuse("k-mer hash function", u32_at(h + 16),
           "this build knows only " + std::to_string(ff::hash_function_id));
  DatabaseParams p;
  p.sketch.k = u32_at(h + 20);
  p.sketch.window = u32_at(h + 24);
  p.sketch.sketch_size = u32_at(h + 28);
  p.max_locations_per_feature = u32_at(h + 32);
  const std::uint32_t flags = u32_at(h + 36);
  p.remove_overpopulated_features = (flags & ff::flag_remove_overpopulated) != 0;
  const std::uint32_t sampling = u32_at(h + 44);
  if (version < ff::first_sampling_version) {
    // Bytes 44 to 47 were reserved (0): such a file holds minhash windows.
    if (sampling != 0) refuse("reserved (bytes 44 to 47)", sampling, "must be 0");
  } else {
    p.sketch.sampling = sketch::Sampling(sampling & 0xffffu);
    p.sketch.sampling_parameter = sampling >> 16;
  }
  std::string why;
  if (!sketch::valid(p.sketch, &why)) in.fail("header field " + why);
  if (p.max_locations_per_feature == 0)
    refuse("max locations per feature", 0, "must be at least 1");
  if (flags & ~ff::flag_remove_overpopulated)
    refuse("flags", flags, "only bit 0 (overpopulated features removed) is defined");
  return p;
}

// Section table: fixed order, contiguous, sizes consistent with counts.
// The element size a section's table entry must hold: version 4's counts
// and locations have a width of their own (checked against the rule once
// the targets are read, check_widths).
bool known_element_size(ff::SectionId id, std::uint32_t size, std::uint32_t version) {
  if (version >= ff::first_compact_version && id == ff::SectionId::offsets)
    return size == 1 || size == 2 || size == 4;
  if (version >= ff::first_compact_version && id == ff::SectionId::locations)
    return size == 4 || size == 8;
  return size == ff::element_size(id);
}

std::vector<SectionEntry> read_section_table(Reader& in, const char* h, std::uint64_t file_size,
                                             std::uint32_t version) {
  std::vector<SectionEntry> table;
  std::uint64_t expected_offset = ff::header_bytes;
  for (std::uint32_t i = 0; i < ff::section_count; ++i) {
    const char* e = h + ff::fixed_header_bytes + i * ff::section_entry_bytes;
    SectionEntry s;
    s.id = ff::SectionId(u32_at(e));
    s.element_size = u32_at(e + 4);
    std::memcpy(&s.offset, e + 8, 8);
    std::memcpy(&s.bytes, e + 16, 8);
    std::memcpy(&s.count, e + 24, 8);
    std::memcpy(&s.checksum, e + 32, 8);
    const std::string name(ff::section_name(s.id, version));
    if (std::uint32_t(s.id) != i + 1 || !known_element_size(s.id, s.element_size, version))
      in.fail("corrupted section table (entry " + std::to_string(i) + ")");
    if (s.offset != expected_offset || s.bytes > file_size || s.offset > file_size - s.bytes)
      in.fail("implausible offset or size of section '" + name + "'");
    if (s.element_size != 0 && s.count != s.bytes / s.element_size)
      in.fail("implausible element count " + std::to_string(s.count) + " in section '" + name +
              "' of " + std::to_string(s.bytes) + " bytes");
    if (s.element_size != 0 && s.bytes % s.element_size != 0)
      in.fail("section '" + name + "' size is not a multiple of its element size");
    if (s.element_size == 0 && s.count > s.bytes)  // every record takes > 1 byte
      in.fail("implausible record count " + std::to_string(s.count) + " in section '" + name + "'");
    expected_offset += ff::padded(s.bytes);
    table.push_back(s);
  }
  if (expected_offset != file_size) in.fail("corrupted section table (sizes do not add up)");
  return table;
}

std::vector<Target> parse_targets(Reader& in, const IndexArray<char>& bytes,
                                  std::uint64_t count) {
  ByteReader r(bytes.data(), bytes.size(), "section 'targets'");
  std::vector<Target> targets(count);
  try {
    for (Target& t : targets) {
      t.taxid = r.u32();
      t.windows = r.u32();
      t.length = r.u64();
      t.name = r.string();
      t.accession = r.string();
      t.source_file = r.string();
    }
  } catch (const std::runtime_error& e) {
    in.fail(e.what());
  }
  if (r.remaining() != 0) in.fail("section 'targets' has trailing bytes");
  return targets;
}

taxonomy::Taxonomy parse_taxonomy(Reader& in, const IndexArray<char>& node_bytes,
                                  std::uint64_t node_count, const IndexArray<char>& merged_bytes,
                                  std::uint64_t merged_count) {
  ByteReader r(node_bytes.data(), node_bytes.size(), "section 'taxonomy nodes'");
  std::vector<taxonomy::Node> nodes(node_count);
  try {
    for (taxonomy::Node& n : nodes) {
      n.id = r.u32();
      n.parent = r.u32();
      const std::uint8_t rank = r.u8();
      if (rank > std::uint8_t(taxonomy::Rank::root))
        in.fail("section 'taxonomy nodes': unknown rank code " + std::to_string(rank));
      n.rank = taxonomy::Rank(rank);
      n.name = r.string();
    }
  } catch (const std::runtime_error& e) {
    in.fail(e.what());
  }
  if (r.remaining() != 0) in.fail("section 'taxonomy nodes' has trailing bytes");
  ByteReader m(merged_bytes.data(), merged_bytes.size(), "section 'taxonomy merged'");
  std::vector<std::pair<taxid_t, taxid_t>> merged(merged_count);
  for (auto& [from, to] : merged) {
    from = m.u32();
    to = m.u32();
  }
  try {
    return taxonomy::Taxonomy::from_nodes(std::move(nodes), std::move(merged));
  } catch (const std::exception& e) {
    in.fail(std::string("invalid embedded taxonomy: ") + e.what());
  }
}

// What the metadata says beyond its checksums (a hand-made file can carry
// valid ones over anything): each target's window count is the one its
// length gives (a length of 2^64 - 1 would be shown wrapped), the lengths add
// up within 2^64 - 1, target ids fit 32 bits, and no feature can have more
// locations than the cap. The problem names the target or the counts.
void check_metadata(Reader& in, const Database& db, std::uint64_t features,
                    std::uint64_t locations) {
  const sketch::SketchParams& params = db.params.sketch;
  if (db.targets.size() > std::numeric_limits<sketch::target_id_t>::max())
    in.fail(std::to_string(db.targets.size()) + " targets: target ids have 32 bits");
  std::uint64_t bases = 0;
  for (std::size_t i = 0; i < db.targets.size(); ++i) {
    const Target& t = db.targets[i];
    const std::string target = "target " + std::to_string(i) + " ('" + t.name + "'): ";
    const std::uint64_t windows = sketch::window_count(t.length, params);
    if (windows != t.windows)
      in.fail(target + std::to_string(t.windows) + " windows, but its length " +
              std::to_string(t.length) + " gives " + std::to_string(windows) + " with k " +
              std::to_string(params.k) + " and w " + std::to_string(params.window));
    if (t.length > std::numeric_limits<std::uint64_t>::max() - bases)
      in.fail(target + "the targets' lengths add up to more than 2^64 - 1 bases");
    bases += t.length;
  }
  if (locations > static_cast<unsigned __int128>(features) * db.params.max_locations_per_feature)
    in.fail("the index holds " + std::to_string(locations) + " locations for " +
            std::to_string(features) + " features, more than max locations per feature " +
            std::to_string(db.params.max_locations_per_feature) + " allows");
}

// What a file holds before its index (steps 1-9 and 11 of
// docs/database-format.md "Reading and validation"): the header, the section
// table, the targets and the taxonomy. Shared by load() and
// load_metadata() (the partitioned query, db/partial_load.hpp).
struct Metadata {
  Database db;  // the index empty
  std::uint32_t version = 0;
  std::uint64_t file_size = 0;
  std::vector<SectionEntry> table;
  const SectionEntry& section(ff::SectionId id) const { return table[std::uint32_t(id) - 1]; }
};

// Version 4: the widths of the counts and locations are the ones the cap and
// the targets' windows give (compact_index.hpp), so that a database has one
// file.
void check_widths(Reader& in, const Metadata& m) {
  const std::uint32_t counts = m.section(ff::SectionId::offsets).element_size;
  const std::uint32_t locations = m.section(ff::SectionId::locations).element_size;
  const std::uint32_t cap = m.db.params.max_locations_per_feature;
  const std::uint64_t windows = compact::WindowIds(m.db.targets).total();
  if (counts != compact::count_width(cap))
    in.fail("corrupted section table: counts of " + std::to_string(counts) +
            " bytes, but max locations per feature " + std::to_string(cap) + " takes " +
            std::to_string(compact::count_width(cap)));
  if (locations != compact::location_width(windows))
    in.fail("corrupted section table: locations of " + std::to_string(locations) +
            " bytes, but the targets' " + std::to_string(windows) + " windows take " +
            std::to_string(compact::location_width(windows)));
}

Metadata read_metadata(Reader& in) {
  char h[ff::header_bytes];
  const std::size_t got = in.read_some(h, sizeof h, 0);
  if (got < ff::magic.size() || std::memcmp(h, ff::magic.data(), ff::magic.size()) != 0)
    in.fail("not a metawarp database (wrong magic number)");
  if (got < 12) in.fail("truncated: " + std::to_string(in.size()) + " bytes, shorter than the header");
  const std::uint32_t version = u32_at(h + 4);
  if (version > format_version)
    in.fail("made by a newer metawarp (file format version " + std::to_string(version) +
            ", this build reads up to " + std::to_string(format_version) + ")");
  if (version == 0) in.fail("corrupted header (format version 0)");
  if (u32_at(h + 8) != ff::endian_marker)
    in.fail("written with a different byte order (endianness marker mismatch)");
  if (got < ff::header_bytes)
    in.fail("truncated: " + std::to_string(in.size()) + " bytes, shorter than the " +
            std::to_string(ff::header_bytes) + "-byte header");
  std::uint64_t stored_header_checksum;
  std::memcpy(&stored_header_checksum, h + ff::header_bytes - 8, 8);
  if (checksum64(h, ff::header_bytes - 8) != stored_header_checksum)
    in.fail("checksum mismatch in the header (the file is corrupted)");
  if (u32_at(h + 12) != ff::header_bytes || u32_at(h + 40) != ff::section_count)
    in.fail("corrupted header (unexpected header size or section count)");
  std::uint64_t declared_size;
  std::memcpy(&declared_size, h + 48, 8);
  if (in.size() < declared_size)
    in.fail("truncated: " + std::to_string(in.size()) + " of " + std::to_string(declared_size) +
            " bytes present");
  if (in.size() > declared_size)
    in.fail("corrupted: " + std::to_string(in.size() - declared_size) +
            " unexpected bytes after the end of the database");

  Metadata m;
  m.version = version;
  m.file_size = declared_size;
  m.db.params = read_params(in, h, version);
  m.table = read_section_table(in, h, declared_size, version);
  const std::uint64_t lists = m.section(ff::SectionId::offsets).count;
  const std::uint64_t features = m.section(ff::SectionId::features).count;
  if (version < ff::first_compact_version && lists != features + 1)
    in.fail("implausible counts: offsets must number features + 1");
  if (version >= ff::first_compact_version && lists != features)
    in.fail("implausible counts: counts must number the features");

  IndexArray<char> target_bytes, node_bytes, merged_bytes;
  read_section(in, version, m.section(ff::SectionId::targets), target_bytes);
  read_section(in, version, m.section(ff::SectionId::taxonomy_nodes), node_bytes);
  read_section(in, version, m.section(ff::SectionId::taxonomy_merged), merged_bytes);
  m.db.targets = parse_targets(in, target_bytes, m.section(ff::SectionId::targets).count);
  m.db.taxonomy =
      parse_taxonomy(in, node_bytes, m.section(ff::SectionId::taxonomy_nodes).count, merged_bytes,
                     m.section(ff::SectionId::taxonomy_merged).count);
  check_metadata(in, m.db, m.section(ff::SectionId::features).count,
                 m.section(ff::SectionId::locations).count);
  if (version >= ff::first_compact_version) check_widths(in, m);
  return m;
}

using Array = IndexReadObserver::Array;

// What the observer sees of an array: each chunk once it is read.
template <class T>
ChunkVisitor shown(IndexReadObserver* observer, Array array, const IndexArray<T>& out) {
  if (!observer) return {};
  return [observer, array, &out](std::size_t begin, std::size_t end) {
    observer->chunk(array, begin, reinterpret_cast<const char*>(out.data()) + begin, end - begin);
  };
}

// The first of the positions reported to it, from any thread.
class FirstBad {
 public:
  explicit FirstBad(std::size_t none) : first_(none) {}
  void report(std::size_t i) {
    for (std::size_t seen = first_.load(); i < seen && !first_.compare_exchange_weak(seen, i);) {
    }
  }
  std::size_t get() const { return first_.load(); }

 private:
  std::atomic<std::size_t> first_;
};

// Versions 1 to 3: the arrays as they are in memory.
FeatureIndex read_index(Reader& in, const Metadata& m, IndexReadObserver* observer) {
  const auto section = [&m](ff::SectionId id) -> const SectionEntry& { return m.section(id); };
  IndexArray<feature_t> features;
  IndexArray<std::uint64_t> offsets;
  IndexArray<Location> locations;
  read_section(in, m.version, section(ff::SectionId::features), features,
               shown(observer, Array::features, features));
  read_section(in, m.version, section(ff::SectionId::offsets), offsets,
               shown(observer, Array::offsets, offsets));
  const ChunkVisitor show_locations = shown(observer, Array::locations, locations);
  // Every location inside its target's windows, checked by the thread that
  // read it while it is in the cache; the first bad one in file order is
  // reported, once the section's checksum has shown that it is what was written.
  const std::vector<Target>& targets = m.db.targets;
  std::vector<std::uint32_t> windows(targets.size());
  for (std::size_t t = 0; t < targets.size(); ++t) windows[t] = targets[t].windows;
  FirstBad bad(section(ff::SectionId::locations).count);
  read_section(in, m.version, section(ff::SectionId::locations), locations,
               [&](std::size_t begin, std::size_t end) {
    const Location* l = locations.data();
    for (std::size_t i = begin / sizeof(Location); i < end / sizeof(Location); ++i) {
      if (l[i].target < windows.size() && l[i].window < windows[l[i].target]) continue;
      bad.report(i);
      break;
    }
    if (show_locations) show_locations(begin, end);
  });
  if (const std::size_t i = bad.get(); i < locations.size())
    in.fail("corrupted: location (target " + std::to_string(locations[i].target) +
            ", window " + std::to_string(locations[i].window) +
            ") outside the targets' windows");
  try {
    return FeatureIndex(std::move(features), std::move(offsets), std::move(locations));
  } catch (const std::invalid_argument& e) {
    in.fail(std::string("corrupted ") + e.what());
  }
}

// Version 4: the counts summed into offsets, the global window ids decoded
// into locations by the threads that read them (compact_index.hpp).
FeatureIndex read_compact_index(Reader& in, const Metadata& m, IndexReadObserver* observer) {
  const SectionEntry& counts_section = m.section(ff::SectionId::offsets);
  const SectionEntry& locations_section = m.section(ff::SectionId::locations);
  const std::uint64_t n = m.section(ff::SectionId::features).count;
  IndexArray<feature_t> features;
  read_section(in, m.version, m.section(ff::SectionId::features), features,
               shown(observer, Array::features, features));
  IndexArray<char> counts;
  read_section(in, m.version, counts_section, counts);
  IndexArray<std::uint64_t> offsets = host::make_uninitialized_large_vector<std::uint64_t>(n + 1);
  compact::offsets_from_counts(counts.data(), n, counts_section.element_size, 0, offsets.data(),
                               in.threads());
  counts = {};
  if (offsets[n] != locations_section.count)
    in.fail("corrupted feature index: the counts add up to " + std::to_string(offsets[n]) +
            " locations, the section holds " + std::to_string(locations_section.count));
  if (observer) observer->chunk(Array::offsets, 0, offsets.data(), offsets.size() * sizeof(std::uint64_t));

  const compact::WindowIds ids(m.db.targets);
  const std::uint32_t width = locations_section.element_size;
  IndexArray<Location> locations =
      host::make_uninitialized_large_vector<Location>(locations_section.count);
  // Every id below the targets' windows, checked as it is decoded; the first
  // bad one in file order is reported once the checksum has matched.
  FirstBad bad(locations_section.count);
  std::vector<std::uint64_t> bad_ids(checksum_chunk_count(locations_section.bytes));
  const std::uint64_t checksum = in.read_decoding(
      locations_section.bytes, locations_section.offset, "section 'locations'",
      [&](std::size_t begin, const char* bytes, std::size_t size) {
        const std::size_t first = begin / width, count = size / width;
        const std::size_t at = compact::decode_locations(bytes, count, ids, width,
                                                         locations.data() + first);
        if (at < count) {
          bad_ids[begin / ff::checksum_chunk_bytes] = compact::element_at(bytes, at, width);
          bad.report(first + at);
        }
        if (observer)
          observer->chunk(Array::locations, first * sizeof(Location), locations.data() + first,
                          count * sizeof(Location));
      });
  check_section_end(in, m.version, locations_section, checksum);
  if (const std::size_t i = bad.get(); i < locations.size())
    in.fail("corrupted: location (window id " +
            std::to_string(bad_ids[i * width / ff::checksum_chunk_bytes]) +
            ") outside the targets' windows (" + std::to_string(ids.total()) + ")");
  try {
    return FeatureIndex(std::move(features), std::move(offsets), std::move(locations));
  } catch (const std::invalid_argument& e) {
    in.fail(std::string("corrupted ") + e.what());
  }
}

Database read_database(const std::filesystem::path& path, unsigned threads,
                       IndexReadObserver* observer) {
  Reader in(path, threads);
  Metadata m = read_metadata(in);
  if (observer) {
    observer->targets(m.db.targets);
    observer->sizes(m.section(ff::SectionId::features).count,
                    m.section(ff::SectionId::locations).count);
  }
  m.db.index = m.version >= ff::first_compact_version ? read_compact_index(in, m, observer)
                                                      : read_index(in, m, observer);
  return std::move(m.db);
}

// The path in front of every problem, in this one place.
template <class F>
auto naming_the_file(const std::filesystem::path& path, F read) {
  try {
    return read();
  } catch (const std::runtime_error& problem) {
    throw std::runtime_error("database '" + path.string() + "': " + problem.what());
  }
}

IndexSectionInfo section_info(const SectionEntry& s) {
  return IndexSectionInfo{s.offset, s.bytes, s.count, s.checksum, s.element_size};
}

}  // namespace

Database load(const std::filesystem::path& path, unsigned threads, IndexReadObserver* observer) {
  return naming_the_file(path, [&] { return read_database(path, threads, observer); });
}

DatabaseMetadata load_metadata(const std::filesystem::path& path, unsigned threads) {
  return naming_the_file(path, [&] {
    Reader in(path, threads);
    Metadata m = read_metadata(in);
    DatabaseMetadata result;
    result.db = std::move(m.db);
    result.version = m.version;
    result.file_size = m.file_size;
    result.features = section_info(m.section(ff::SectionId::features));
    result.offsets = section_info(m.section(ff::SectionId::offsets));
    result.locations = section_info(m.section(ff::SectionId::locations));
    return result;
  });
}

}  // namespace metawarp::db
