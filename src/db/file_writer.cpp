#include "db/file_writer.hpp"

#include <stdexcept>

#include "db/bytes.hpp"
#include "db/checksum.hpp"

namespace metawarp::db {

namespace ff = file_format;

std::vector<char> serialise_targets(const std::vector<Target>& targets) {
  ByteWriter w;
  for (const Target& t : targets) {
    w.u32(t.taxid);
    w.u32(t.windows);
    w.u64(t.length);
    w.string(t.name);
    w.string(t.accession);
    w.string(t.source_file);
  }
  return std::move(w.bytes());
}

std::vector<char> serialise_nodes(const std::vector<taxonomy::Node>& nodes) {
  ByteWriter w;
  for (const taxonomy::Node& n : nodes) {
    w.u32(n.id);
    w.u32(n.parent);
    w.u8(std::uint8_t(n.rank));
    w.string(n.name);
  }
  return std::move(w.bytes());
}

std::vector<char> serialise_merged(const std::vector<std::pair<taxid_t, taxid_t>>& merged) {
  ByteWriter w;
  for (const auto& [from, to] : merged) {
    w.u32(from);
    w.u32(to);
  }
  return std::move(w.bytes());
}

std::vector<std::uint64_t> section_offsets(const SectionEntry (&sections)[ff::section_count]) {
  std::vector<std::uint64_t> offsets;
  std::uint64_t offset = ff::header_bytes;
  for (const SectionEntry& s : sections) {
    offsets.push_back(offset);
    offset += ff::padded(s.bytes);
  }
  offsets.push_back(offset);
  return offsets;
}

std::vector<char> file_header(const DatabaseParams& params,
                              const SectionEntry (&sections)[ff::section_count]) {
  const std::vector<std::uint64_t> offsets = section_offsets(sections);
  ByteWriter header;
  header.raw(ff::magic.data(), ff::magic.size());
  header.u32(format_version);
  header.u32(ff::endian_marker);
  header.u32(std::uint32_t(ff::header_bytes));
  header.u32(ff::hash_function_id);
  header.u32(params.sketch.k);
  header.u32(params.sketch.window);
  header.u32(params.sketch.sketch_size);
  header.u32(params.max_locations_per_feature);
  header.u32(params.remove_overpopulated_features ? ff::flag_remove_overpopulated : 0);
  header.u32(ff::section_count);
  // The sampling: its code in the low 16 bits, its parameter in the high ones.
  header.u32(std::uint32_t(params.sketch.sampling) | (params.sketch.sampling_parameter << 16));
  header.u64(offsets.back());  // the file size
  for (std::uint32_t i = 0; i < ff::section_count; ++i) {
    const SectionEntry& s = sections[i];
    header.u32(std::uint32_t(s.id));
    header.u32(ff::element_size(s.id));
    header.u64(offsets[i]);
    header.u64(s.bytes);
    header.u64(s.count);
    header.u64(s.checksum);
  }
  header.u64(checksum64(header.bytes().data(), header.bytes().size()));
  if (header.bytes().size() != ff::header_bytes)
    throw std::logic_error("database header layout does not match file_format.hpp");
  return std::move(header.bytes());
}

}  // namespace metawarp::db
