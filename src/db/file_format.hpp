#pragma once
// Layout constants of the database file (docs/database-format.md), shared by
// the writer and the reader.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace metawarp::db::file_format {

inline constexpr std::array<char, 4> magic = {'M', 'W', 'D', 'B'};
inline constexpr std::uint32_t endian_marker = 0x01020304;
// Which k-mer hash made the features: 1 = high 32 bits of fmix64 (hash.hpp).
inline constexpr std::uint32_t hash_function_id = 1;
inline constexpr std::uint32_t flag_remove_overpopulated = 1;

enum class SectionId : std::uint32_t {
  targets = 1,
  taxonomy_nodes = 2,
  taxonomy_merged = 3,
  features = 4,
  offsets = 5,    // from version 4: the list lengths ("counts")
  locations = 6,  // from version 4: global window ids
};
inline constexpr std::uint32_t section_count = 6;

inline constexpr std::string_view section_name(SectionId id) {
  switch (id) {
    case SectionId::targets: return "targets";
    case SectionId::taxonomy_nodes: return "taxonomy nodes";
    case SectionId::taxonomy_merged: return "taxonomy merged";
    case SectionId::features: return "features";
    case SectionId::offsets: return "offsets";  // "counts" from version 4: section_name(id, version)
    case SectionId::locations: return "locations";
  }
  return "unknown";
}

// From format version 4 the index is compact (db/compact_index.hpp): section
// 5 holds each feature's list length in 1, 2 or 4 bytes, section 6 each
// location as a global window id of 4 or 8 bytes; the widths are in the
// section table's element sizes.
inline constexpr std::uint32_t first_compact_version = 4;

inline constexpr std::string_view section_name(SectionId id, std::uint32_t version) {
  return id == SectionId::offsets && version >= first_compact_version ? "counts"
                                                                      : section_name(id);
}

// Bytes per element for fixed-size sections, 0 for variable-size records
// (versions 1 to 3; version 4's counts and locations: compact_index.hpp).
inline constexpr std::uint32_t element_size(SectionId id) {
  switch (id) {
    case SectionId::taxonomy_merged: return 8;
    case SectionId::features: return 4;
    case SectionId::offsets: return 8;
    case SectionId::locations: return 8;
    default: return 0;
  }
}

// Header: fixed fields (48 bytes), section table (40 bytes per section),
// header checksum (8 bytes).
inline constexpr std::size_t fixed_header_bytes = 56;
inline constexpr std::size_t section_entry_bytes = 40;
inline constexpr std::size_t header_bytes =
    fixed_header_bytes + section_count * section_entry_bytes + 8;
inline constexpr std::size_t alignment = 8;

// From format version 2 a section's checksum is taken over its checksum
// chunks (checksum.hpp: chunked_checksum), so that all cores check a section
// at once; version 1 files hold checksum64 of the whole section.
inline constexpr std::uint32_t first_chunked_checksum_version = 2;
inline constexpr std::size_t checksum_chunk_bytes = std::size_t(1) << 20;

// From format version 3 header bytes 44 to 47 (reserved, 0, before) hold the
// sampling (sketch::Sampling, the low 16 bits) and its parameter (the high
// 16 bits); an older file holds minhash windows.
inline constexpr std::uint32_t first_sampling_version = 3;

inline constexpr std::uint64_t padded(std::uint64_t bytes) {
  return (bytes + alignment - 1) / alignment * alignment;
}

}  // namespace metawarp::db::file_format
