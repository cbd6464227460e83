// load(): read and validate a database file (docs/database-format.md). Every
// check names the problem, and load() puts the file's name in front of it, in
// that one place; the big arrays are read straight into their vectors, by all
// cores (Reader::read_checksummed).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "db/bytes.hpp"
#include "db/checksum.hpp"
#include "db/database.hpp"
#include "db/file_format.hpp"
#include "db/parallel_read.hpp"
#include "metawarp/host/large_vector.hpp"
#include "metawarp/host/parallel_for.hpp"
#include "metawarp/sketch/sketch.hpp"

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
  explicit Reader(const std::filesystem::path& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) fail("no such file");
    if (std::filesystem::is_directory(path, ec)) fail("is a directory, not a database file");
    file_.reset(std::fopen(path.c_str(), "rb"));
    if (!file_) fail(std::string("cannot open: ") + std::strerror(errno));
    size_ = std::filesystem::file_size(path, ec);
    if (ec) fail("cannot determine file size: " + ec.message());
  }

  // The file's name is added by load(), for this and every other error.
  [[noreturn]] void fail(const std::string& problem) const { throw std::runtime_error(problem); }

  std::uint64_t size() const { return size_; }

  // Reads up to n bytes; returns how many were read.
  std::size_t read_some(void* dst, std::size_t n) {
    return n ? std::fread(dst, 1, n, file_.get()) : 0;
  }
  void read_exact(void* dst, std::size_t n, std::string_view what) {
    if (read_some(dst, n) != n)
      fail("truncated or unreadable while reading " + std::string(what));
  }

  // read_exact() and checksum64() of the bytes read; large sections are
  // read by all cores (read_and_checksum).
  std::uint64_t read_checksummed(void* dst, std::size_t n, std::string_view what) {
    if (n < 2 * parallel_read_chunk) {
      read_exact(dst, n, what);
      return checksum64(dst, n);
    }
    const long start = std::ftell(file_.get());
    if (start < 0) fail("cannot tell the read position: " + std::string(std::strerror(errno)));
    const auto sum = read_and_checksum(fileno(file_.get()), std::uint64_t(start), dst, n);
    if (!sum) fail("truncated or unreadable while reading " + std::string(what));
    if (std::fseek(file_.get(), start + long(n), SEEK_SET) != 0)
      fail("cannot seek: " + std::string(std::strerror(errno)));
    return *sum;
  }

 private:
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };

  std::unique_ptr<std::FILE, Closer> file_;
  std::uint64_t size_ = 0;
};

std::uint32_t u32_at(const char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// Reads a section's payload into `out` (resized to count elements of T or to
// its byte size for T = char), checks its checksum and zero padding.
template <class T>
void read_section(Reader& in, const SectionEntry& s, std::vector<T>& out) {
  const std::string name(ff::section_name(s.id));
  out = host::make_large_vector<T>(sizeof(T) == 1 ? s.bytes : s.count);
  const std::uint64_t checksum = in.read_checksummed(out.data(), s.bytes, "section '" + name + "'");
  char padding[ff::alignment] = {};
  const std::size_t pad = ff::padded(s.bytes) - s.bytes;
  in.read_exact(padding, pad, "section '" + name + "'");
  for (std::size_t i = 0; i < pad; ++i)
    if (padding[i] != 0) in.fail("corrupted: non-zero padding after section '" + name + "'");
  if (checksum != s.checksum)
    in.fail("checksum mismatch in section '" + name + "' (the file is corrupted)");
}

DatabaseParams read_params(Reader& in, const char* h) {
  DatabaseParams p;
  if (u32_at(h + 16) != ff::hash_function_id)
    in.fail("unknown k-mer hash function id " + std::to_string(u32_at(h + 16)));
  p.sketch.k = u32_at(h + 20);
  p.sketch.window = u32_at(h + 24);
  p.sketch.sketch_size = u32_at(h + 28);
  p.max_locations_per_feature = u32_at(h + 32);
  const std::uint32_t flags = u32_at(h + 36);
  p.remove_overpopulated_features = (flags & ff::flag_remove_overpopulated) != 0;
  std::string why;
  if (!sketch::valid(p.sketch, &why)) in.fail("implausible sketch parameters: " + why);
  if (p.max_locations_per_feature == 0) in.fail("implausible max_locations_per_feature 0");
  if (flags & ~ff::flag_remove_overpopulated) in.fail("unknown flags in header");
  return p;
}

// Section table: fixed order, contiguous, sizes consistent with counts.
std::vector<SectionEntry> read_section_table(Reader& in, const char* h, std::uint64_t file_size) {
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
    const std::string name(ff::section_name(s.id));
    if (std::uint32_t(s.id) != i + 1 || s.element_size != ff::element_size(s.id))
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

std::vector<Target> parse_targets(Reader& in, const std::vector<char>& bytes,
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

taxonomy::Taxonomy parse_taxonomy(Reader& in, const std::vector<char>& node_bytes,
                                  std::uint64_t node_count, const std::vector<char>& merged_bytes,
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

Database read_database(const std::filesystem::path& path) {
  Reader in(path);
  char h[ff::header_bytes];
  const std::size_t got = in.read_some(h, sizeof h);
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

  Database db;
  db.params = read_params(in, h);
  const std::vector<SectionEntry> table = read_section_table(in, h, declared_size);
  auto section = [&](ff::SectionId id) -> const SectionEntry& {
    return table[std::uint32_t(id) - 1];
  };
  if (section(ff::SectionId::offsets).count != section(ff::SectionId::features).count + 1)
    in.fail("implausible counts: offsets must number features + 1");

  std::vector<char> target_bytes, node_bytes, merged_bytes;
  std::vector<feature_t> features;
  std::vector<std::uint64_t> offsets;
  std::vector<Location> locations;
  read_section(in, section(ff::SectionId::targets), target_bytes);
  read_section(in, section(ff::SectionId::taxonomy_nodes), node_bytes);
  read_section(in, section(ff::SectionId::taxonomy_merged), merged_bytes);
  read_section(in, section(ff::SectionId::features), features);
  read_section(in, section(ff::SectionId::offsets), offsets);
  read_section(in, section(ff::SectionId::locations), locations);

  db.targets = parse_targets(in, target_bytes, section(ff::SectionId::targets).count);
  db.taxonomy = parse_taxonomy(in, node_bytes, section(ff::SectionId::taxonomy_nodes).count,
                               merged_bytes, section(ff::SectionId::taxonomy_merged).count);
  // Every location inside its target's windows, checked by all cores; the
  // first bad one (in file order) is reported.
  std::vector<std::uint32_t> windows(db.targets.size());
  for (std::size_t t = 0; t < db.targets.size(); ++t) windows[t] = db.targets[t].windows;
  std::mutex bad_mutex;
  std::size_t bad = locations.size();
  host::parallel_ranges(locations.size(),
                        host::parts_for(locations.size(), std::size_t(1) << 22),
                        [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const Location l = locations[i];
      if (l.target >= windows.size() || l.window >= windows[l.target]) {
        std::lock_guard lock(bad_mutex);
        bad = std::min(bad, i);
        return;
      }
    }
  });
  if (bad < locations.size())
    in.fail("corrupted: location (target " + std::to_string(locations[bad].target) +
            ", window " + std::to_string(locations[bad].window) +
            ") outside the targets' windows");
  try {
    db.index = FeatureIndex(std::move(features), std::move(offsets), std::move(locations));
  } catch (const std::invalid_argument& e) {
    in.fail(std::string("corrupted ") + e.what());
  }
  return db;
}

}  // namespace

Database load(const std::filesystem::path& path) {
  try {
    return read_database(path);
  } catch (const std::runtime_error& problem) {
    throw std::runtime_error("database '" + path.string() + "': " + problem.what());
  }
}

}  // namespace metawarp::db
