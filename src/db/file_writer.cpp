#include "db/file_writer.hpp"

#include <stdexcept>

#include "db/bytes.hpp"
#include "db/checksum.hpp"
#include "db/compact_index.hpp"
#include "db/parallel_write.hpp"

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
                              const SectionEntry (&sections)[ff::section_count],
                              std::uint32_t version) {
  const std::vector<std::uint64_t> offsets = section_offsets(sections);
  ByteWriter header;
  header.raw(ff::magic.data(), ff::magic.size());
  header.u32(version);
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
    header.u32(s.element_size);
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

namespace metawarp::db {

void write_database(output::AtomicFile& file, const DatabaseParams& params,
                    const std::vector<Target>& targets, const taxonomy::Taxonomy& taxonomy,
                    const IndexSource& index, unsigned threads, output::Sync sync) {
  const std::vector<char> target_bytes = serialise_targets(targets);
  const std::vector<char> nodes = serialise_nodes(taxonomy.nodes());
  const std::vector<char> merged = serialise_merged(taxonomy.merged());
  const compact::WindowIds ids(targets);
  const std::uint32_t fw = sizeof(feature_t);
  const std::uint32_t cw = compact::count_width(params.max_locations_per_feature);
  const std::uint32_t lw = compact::location_width(ids.total());
  const std::uint64_t features = index.features, locations = index.locations;
  SectionEntry entries[ff::section_count] = {
      {ff::SectionId::targets, 0, target_bytes.size(), targets.size(), 0},
      {ff::SectionId::taxonomy_nodes, 0, nodes.size(), taxonomy.nodes().size(), 0},
      {ff::SectionId::taxonomy_merged, 8, merged.size(), taxonomy.merged().size(), 0},
      {ff::SectionId::features, fw, features * fw, features, 0},
      {ff::SectionId::offsets, cw, features * cw, features, 0},
      {ff::SectionId::locations, lw, locations * lw, locations, 0},
  };
  // A checksum chunk is a multiple of every width: each is encoded alone.
  const ChunkSource sources[ff::section_count] = {
      [&](unsigned, std::uint64_t begin, std::size_t, char*) {
        return target_bytes.data() + begin;
      },
      [&](unsigned, std::uint64_t begin, std::size_t, char*) { return nodes.data() + begin; },
      [&](unsigned, std::uint64_t begin, std::size_t, char*) { return merged.data() + begin; },
      [&](unsigned worker, std::uint64_t begin, std::size_t size, char*) {
        return reinterpret_cast<const char*>(index.feature_values(worker, begin / fw, size / fw));
      },
      [&](unsigned worker, std::uint64_t begin, std::size_t size, char* scratch) {
        if (index.count_bytes) return index.count_bytes(worker, begin, size);
        compact::encode_counts(index.offsets(worker, begin / cw, size / cw), 0, size / cw, cw,
                               scratch);
        return static_cast<const char*>(scratch);
      },
      [&](unsigned worker, std::uint64_t begin, std::size_t size, char* scratch) {
        if (index.location_bytes) return index.location_bytes(worker, begin, size);
        compact::encode_locations(index.location_values(worker, begin / lw, size / lw), size / lw,
                                  ids, lw, scratch);
        return static_cast<const char*>(scratch);
      },
  };
  // The sections first, each at its offset by all threads; the header, which
  // holds their checksums, last. Nothing is visible before commit() anyway.
  const std::vector<std::uint64_t> offsets = section_offsets(entries);
  file.reserve(offsets.back());  // its room, and the threads' writes side by side
  const char zeros[ff::alignment] = {};
  for (std::uint32_t i = 0; i < ff::section_count; ++i) {
    SectionEntry& s = entries[i];
    s.checksum = write_chunked(file, offsets[i], s.bytes, threads, sources[i]);
    file.write_at(offsets[i] + s.bytes, zeros, ff::padded(s.bytes) - s.bytes);
  }
  const std::vector<char> header = file_header(params, entries);
  file.write_at(0, header.data(), header.size());
  file.commit(sync);
}

IndexSource index_source(const FeatureIndex& index) {
  IndexSource source;
  source.features = index.feature_count();
  source.locations = index.location_count();
  source.feature_values = [&index](unsigned, std::uint64_t first, std::size_t) {
    return index.features().data() + first;
  };
  source.offsets = [&index](unsigned, std::uint64_t first, std::size_t) {
    return index.offsets().data() + first;
  };
  source.location_values = [&index](unsigned, std::uint64_t first, std::size_t) {
    return index.locations().data() + first;
  };
  return source;
}

}  // namespace metawarp::db
