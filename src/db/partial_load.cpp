// PartialDatabase: the index read part by part (partial_load.hpp). The file
// is checked once, streamed through a bounded buffer, keeping each checksum
// chunk's sum; a part is then read with pread, chunk by chunk, each chunk
// compared with the sum it had.
#include "db/partial_load.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "db/checksum.hpp"
#include "db/compact_index.hpp"
#include "db/file_format.hpp"
#include "db/parallel_read.hpp"
#include "metawarp/host/background_task.hpp"
#include "metawarp/host/large_vector.hpp"
#include "metawarp/host/parallel_for.hpp"

namespace metawarp::db {
namespace {

namespace ff = file_format;
constexpr std::size_t chunk_bytes = ff::checksum_chunk_bytes;
static_assert(chunk_bytes % sizeof(feature_t) == 0, "a feature never straddles two chunks");
// The index sections stream through a buffer of this many bytes (a multiple
// of the checksum chunk and of 32, for Checksum64::add on version 1 files).
constexpr std::size_t stream_window_bytes = 64 * chunk_bytes;
// Features a plan passes whole or looks at one by one (for_each_length_window).
constexpr std::size_t length_piece = std::size_t(1) << 16;

std::size_t parts_of(std::size_t chunks, unsigned threads) {
  return threads == 0 ? host::parts_for(chunks, 1) : std::min<std::size_t>(threads, chunks);
}

// The smallest index `i` of [begin, end) for which bad(i), or `end`, with
// `parts` threads.
template <class Bad>
std::size_t first_where(std::size_t begin, std::size_t end, std::size_t parts, Bad bad) {
  std::atomic<std::size_t> first{end};
  host::parallel_ranges(end - begin, parts, [&](std::size_t a, std::size_t b) {
    for (std::size_t i = begin + a; i < begin + b && i < first.load(std::memory_order_relaxed);
         ++i) {
      if (!bad(i)) continue;
      for (std::size_t seen = first.load(); i < seen && !first.compare_exchange_weak(seen, i);) {
      }
      return;
    }
  });
  return first.load();
}

}  // namespace

std::uint64_t index_bytes(std::uint64_t features, std::uint64_t locations) {
  return features * sizeof(feature_t) + (features + 1) * sizeof(std::uint64_t) +
         locations * sizeof(Location) + FeatureIndex::lookup_bytes_for(features);
}

PartialDatabase::PartialDatabase(const std::filesystem::path& path, unsigned threads)
    : path_(path), meta_(load_metadata(path, threads)) {
  const std::uint32_t version = meta_.version;
  features_ = Section{meta_.features, ff::section_name(ff::SectionId::features, version), {}};
  offsets_ = Section{meta_.offsets, ff::section_name(ff::SectionId::offsets, version), {}};
  locations_ = Section{meta_.locations, ff::section_name(ff::SectionId::locations, version), {}};
  try {
    file_ = output::FileDescriptor(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!file_.is_open())
      throw std::runtime_error(std::string("cannot open: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(file_.get(), &st) != 0 || std::uint64_t(st.st_size) != meta_.file_size)
      throw std::runtime_error("changed while it was being read");

    // The same checks as load() step 12, in a stream: the first problem in
    // file order, reported once the section's checksum has matched.
    std::uint64_t bad_feature = features_.info.count;
    feature_t previous = 0;
    stream_section<feature_t>(features_, threads, [&](const feature_t* f, std::uint64_t first,
                                                      std::size_t n) {
      if (bad_feature < features_.info.count || n == 0) return;
      if (first > 0 && f[0] <= previous) {
        bad_feature = first;
        return;
      }
      const std::size_t i = first_where(1, n, host::parts_for(n, 1 << 20),
                                        [&](std::size_t j) { return f[j] <= f[j - 1]; });
      if (i < n) bad_feature = first + i;
      previous = f[n - 1];
    });
    if (bad_feature < features_.info.count)
      throw std::runtime_error("corrupted feature index: features not strictly ascending at " +
                               std::to_string(bad_feature));

    if (compact()) stream_compact(threads);
    else stream_offsets_and_locations(threads);
  } catch (const std::runtime_error& problem) {
    throw std::runtime_error("database '" + path.string() + "': " + problem.what());
  }
}

// Versions 1 to 3: load()'s checks of the offsets and locations.
void PartialDatabase::stream_offsets_and_locations(unsigned threads) {
  std::string offsets_problem;
  std::uint64_t last_offset = 0;
  stream_section<std::uint64_t>(offsets_, threads, [&](const std::uint64_t* o,
                                                       std::uint64_t first, std::size_t n) {
    for (std::size_t i = 0; i < n && offsets_problem.empty(); ++i) {
      const std::uint64_t at = first + i;
      if (at == 0 && o[i] != 0) offsets_problem = "offsets do not span the " +
                                                  std::to_string(locations_.info.count) +
                                                  " locations";
      else if (at > 0 && o[i] < last_offset)
        offsets_problem = "offsets decrease at feature " + std::to_string(at - 1);
      else if (at > 0 && o[i] - last_offset > 0xffffffffu)
        offsets_problem = "more than 2^32-1 locations at feature " + std::to_string(at - 1);
      else if (at > 0)
        longest_list_ = std::max(longest_list_, o[i] - last_offset);
      last_offset = o[i];
    }
  });
  if (offsets_problem.empty() && last_offset != locations_.info.count)
    offsets_problem =
        "offsets do not span the " + std::to_string(locations_.info.count) + " locations";
  if (!offsets_problem.empty())
    throw std::runtime_error("corrupted feature index: " + offsets_problem);

  const std::vector<Target>& targets = meta_.db.targets;
  std::vector<std::uint32_t> windows(targets.size());
  for (std::size_t t = 0; t < targets.size(); ++t) windows[t] = targets[t].windows;
  std::uint64_t bad_location = locations_.info.count;
  Location bad_value{};
  stream_section<Location>(locations_, threads, [&](const Location* l, std::uint64_t first,
                                                    std::size_t n) {
    if (bad_location < locations_.info.count) return;
    const std::size_t i = first_where(0, n, host::parts_for(n, 1 << 20), [&](std::size_t j) {
      return !(l[j].target < windows.size() && l[j].window < windows[l[j].target]);
    });
    if (i < n) {
      bad_location = first + i;
      bad_value = l[i];
    }
  });
  if (bad_location < locations_.info.count)
    throw std::runtime_error("corrupted: location (target " + std::to_string(bad_value.target) +
                             ", window " + std::to_string(bad_value.window) +
                             ") outside the targets' windows");
}

// Version 4: the counts add up to the locations, every window id lies below
// the targets' windows (load()'s checks and messages).
void PartialDatabase::stream_compact(unsigned threads) {
  const std::uint32_t cw = offsets_.info.element_size, lw = locations_.info.element_size;
  std::uint64_t sum = 0;
  stream_section<char>(offsets_, threads, [&](const char* counts, std::uint64_t, std::size_t n) {
    // The window's counts in parts side by side: the sum and the largest.
    const std::size_t elements = n / cw, parts = host::parts_for(elements, 1 << 20);
    std::vector<std::uint64_t> sums(parts, 0), longest(parts, 0);
    host::parallel_ranges(parts, parts, [&](std::size_t p, std::size_t) {
      const std::size_t a = elements * p / parts, b = elements * (p + 1) / parts;
      sums[p] = compact::sum_counts(counts + a * cw, b - a, cw);
      longest[p] = compact::longest_count(counts + a * cw, b - a, cw);
    });
    for (std::size_t p = 0; p < parts; ++p) {
      sum += sums[p];
      longest_list_ = std::max(longest_list_, longest[p]);
    }
  });
  if (sum != locations_.info.count)
    throw std::runtime_error("corrupted feature index: the counts add up to " +
                             std::to_string(sum) + " locations, the section holds " +
                             std::to_string(locations_.info.count));
  const std::uint64_t windows = compact::WindowIds(meta_.db.targets).total();
  std::optional<std::uint64_t> bad_id;  // the first in file order
  stream_section<char>(locations_, threads, [&](const char* ids, std::uint64_t, std::size_t n) {
    if (bad_id) return;
    const std::size_t i =
        first_where(0, n / lw, host::parts_for(n / lw, 1 << 20),
                    [&](std::size_t j) { return compact::element_at(ids, j, lw) >= windows; });
    if (i < n / lw) bad_id = compact::element_at(ids, i, lw);
  });
  if (bad_id)
    throw std::runtime_error("corrupted: location (window id " + std::to_string(*bad_id) +
                             ") outside the targets' windows (" + std::to_string(windows) + ")");
}

// Reads a section window by window, keeping the chunks' checksums;
// check(elements, index of the first, count) sees each window, in order,
// while the next window is read into a second buffer (the reads and the
// checks each keep the cores busy; one after the other, the checks of a
// 10 Gbp database held its streaming to a third of the load's rate). Then
// the section's checksum (as its format version defines it) and padding.
template <class T, class Check>
void PartialDatabase::stream_section(Section& section, unsigned threads, Check check) {
  const IndexSectionInfo& s = section.info;
  const std::string what = "section '" + std::string(section.name) + "'";
  section.chunk_sums.assign(checksum_chunk_count(s.bytes), 0);
  const std::uint64_t window_bytes = std::min<std::uint64_t>(s.bytes, stream_window_bytes);
  host::LargeVector<char> buffers[2] = {host::make_uninitialized_large_vector<char>(window_bytes),
                                        host::make_uninitialized_large_vector<char>(
                                            s.bytes > stream_window_bytes ? window_bytes : 0)};
  const auto window_size = [&](std::uint64_t done) {
    return std::size_t(std::min<std::uint64_t>(stream_window_bytes, s.bytes - done));
  };
  bool read_failed = false;  // by the read of the next window (joined before it is looked at)
  const auto read_window = [&](std::uint64_t done, char* into) {
    if (!read_chunk_sums(file_.get(), s.offset + done, into, window_size(done),
                         std::span(section.chunk_sums).subspan(done / chunk_bytes), threads))
      read_failed = true;
  };
  Checksum64 whole;  // version 1: one checksum64 over the section
  std::uint64_t whole_sum = 0;
  host::BackgroundTask next;  // the next window's read
  read_window(0, buffers[0].data());
  for (std::uint64_t done = 0, w = 0; done < s.bytes || done == 0;
       done += stream_window_bytes, ++w) {
    next.wait();
    if (read_failed) throw std::runtime_error("truncated or unreadable while reading " + what);
    const std::size_t n = window_size(done);
    const char* window = buffers[w % 2].data();
    if (done + n < s.bytes)
      next.start([&, at = done + stream_window_bytes, into = buffers[(w + 1) % 2].data()] {
        read_window(at, into);
      });
    check(reinterpret_cast<const T*>(window), done / sizeof(T), n / sizeof(T));
    if (meta_.version < ff::first_chunked_checksum_version) {
      if (done + n < s.bytes) whole.add(window, n);
      else whole_sum = whole.finish(window, n);
    }
    if (s.bytes == 0) break;
  }
  next.wait();
  const std::uint64_t sum = meta_.version < ff::first_chunked_checksum_version
                                ? whole_sum
                                : combine_chunk_checksums(section.chunk_sums);
  if (sum != s.checksum)
    throw std::runtime_error("checksum mismatch in " + what + " (the file is corrupted)");
  char padding[ff::alignment] = {};
  const std::size_t pad = std::size_t(ff::padded(s.bytes) - s.bytes);
  if (!pread_all(file_.get(), padding, pad, s.offset + s.bytes))
    throw std::runtime_error("truncated or unreadable while reading " + what);
  for (std::size_t i = 0; i < pad; ++i)
    if (padding[i] != 0) throw std::runtime_error("corrupted: non-zero padding after " + what);
}

bool PartialDatabase::read_chunk(const Section& section, std::uint64_t c, char* into,
                                 bool& matches) const {
  const std::uint64_t chunk_begin = c * chunk_bytes;
  const std::size_t size = std::size_t(
      std::min<std::uint64_t>(chunk_begin + chunk_bytes, section.info.bytes) - chunk_begin);
  if (!pread_all(file_.get(), into, size, section.info.offset + chunk_begin)) return false;
  matches = checksum64(into, size) == section.chunk_sums[c];
  return true;
}

void PartialDatabase::throw_unreadable(const Section& section) const {
  throw std::runtime_error("database '" + path_.string() +
                           "': truncated or unreadable while reading section '" +
                           std::string(section.name) + "'");
}

void PartialDatabase::throw_mismatch(const Section& section, std::uint64_t c) const {
  throw std::runtime_error(
      "database '" + path_.string() + "': checksum mismatch in section '" +
      std::string(section.name) + "', bytes " + std::to_string(c * chunk_bytes) + " to " +
      std::to_string(std::min<std::uint64_t>((c + 1) * chunk_bytes, section.info.bytes)) +
      " (the file is corrupted, or changed since the query opened it)");
}

void PartialDatabase::read_verified(const Section& section, std::uint64_t begin,
                                    std::uint64_t end, void* to, unsigned threads) const {
  if (begin >= end) return;
  auto* dst = static_cast<char*>(to);
  const std::uint64_t first = begin / chunk_bytes, last = (end - 1) / chunk_bytes + 1;
  const std::size_t chunks = std::size_t(last - first);
  std::atomic<bool> unreadable{false};
  std::atomic<std::uint64_t> bad{last};
  host::parallel_ranges(chunks, parts_of(chunks, threads), [&](std::size_t a, std::size_t b) {
    // A chunk the range covers in part is read whole into `edge`, to check
    // it; allocated (uninitialised) only when needed.
    std::unique_ptr<char[]> edge;
    for (std::uint64_t c = first + a; c < first + b; ++c) {
      const std::uint64_t chunk_begin = c * chunk_bytes;
      const std::uint64_t chunk_end =
          std::min<std::uint64_t>(chunk_begin + chunk_bytes, section.info.bytes);
      const bool whole = chunk_begin >= begin && chunk_end <= end;
      if (!whole && !edge) edge.reset(new char[chunk_bytes]);
      char* into = whole ? dst + (chunk_begin - begin) : edge.get();
      bool matches = false;
      if (!read_chunk(section, c, into, matches)) {
        unreadable = true;
        return;
      }
      if (!matches) {
        for (std::uint64_t seen = bad.load(); c < seen && !bad.compare_exchange_weak(seen, c);) {
        }
        continue;
      }
      if (whole) continue;
      const std::uint64_t from = std::max(chunk_begin, begin), to_end = std::min(chunk_end, end);
      std::memcpy(dst + (from - begin), into + (from - chunk_begin), std::size_t(to_end - from));
    }
  });
  if (unreadable) throw_unreadable(section);
  if (const std::uint64_t c = bad.load(); c < last) throw_mismatch(section, c);
}

template <class Visit>
void PartialDatabase::for_each_length_window(Visit visit) const {
  if (compact()) {
    const std::uint32_t width = offsets_.info.element_size;
    const std::uint64_t window = stream_window_bytes / width, count = offsets_.info.count;
    std::vector<char> counts(std::size_t(std::min(count, window) * width));
    std::vector<std::uint64_t> sums;
    for (std::uint64_t done = 0; done < count; done += window) {
      const std::size_t n = std::size_t(std::min(window, count - done));
      read_verified(offsets_, done * width, (done + n) * width, counts.data(), 0);
      // The read window in pieces of length_piece features, each piece's
      // locations summed on the cores, then visited in order.
      const std::size_t pieces = (n + length_piece - 1) / length_piece;
      sums.assign(pieces, 0);
      const std::size_t threads = host::parts_for(n, 1 << 20);
      host::parallel_ranges(pieces, threads, [&](std::size_t a, std::size_t b) {
        for (std::size_t p = a; p < b; ++p) {
          const std::size_t begin = p * length_piece, end = std::min(n, begin + length_piece);
          sums[p] = compact::sum_counts(counts.data() + begin * width, end - begin, width);
        }
      });
      for (std::size_t p = 0; p < pieces; ++p) {
        const std::size_t begin = p * length_piece, end = std::min(n, begin + length_piece);
        visit(done + begin, std::uint64_t(end - begin), sums[p], [&](auto f) {
          for (std::size_t i = begin; i < end; ++i)
            f(done + i, compact::element_at(counts.data(), i, width));
        });
      }
    }
    return;
  }
  constexpr std::size_t window = stream_window_bytes / sizeof(std::uint64_t);
  const std::uint64_t count = offsets_.info.count;  // features + 1
  std::vector<std::uint64_t> offsets(std::min<std::uint64_t>(count, window));
  std::uint64_t previous = 0;
  for (std::uint64_t done = 0; done < count; done += window) {
    const std::size_t n = std::size_t(std::min<std::uint64_t>(window, count - done));
    read_verified(offsets_, done * sizeof(std::uint64_t), (done + n) * sizeof(std::uint64_t),
                  offsets.data(), 0);
    // Offset i ends feature done + i - 1: the window's features are those
    // its offsets end (the first window's first offset ends none).
    const std::size_t skip = done == 0 ? 1 : 0;
    const std::uint64_t before = previous;
    previous = offsets[n - 1];
    if (n == skip) continue;
    visit(done + skip - 1, std::uint64_t(n - skip), offsets[n - 1] - (skip ? offsets[0] : before),
          [&](auto f) {
            std::uint64_t last = skip ? offsets[0] : before;
            for (std::size_t i = skip; i < n; ++i) {
              f(done + i - 1, offsets[i] - last);
              last = offsets[i];
            }
          });
  }
}

std::vector<IndexPart> PartialDatabase::parts_at(
    const std::vector<std::uint64_t>& cut_features,
    const std::vector<std::uint64_t>& cut_locations) const {
  std::vector<IndexPart> parts(cut_features.size());
  // The cuts ascend: each chunk of the features that holds a part's first
  // feature is read and checked once, however many parts begin in it (a plan
  // of many small parts would otherwise re-read the same chunk per part).
  std::unique_ptr<char[]> chunk;
  std::uint64_t held = ~std::uint64_t(0);
  for (std::size_t p = 0; p < parts.size(); ++p) {
    IndexPart& part = parts[p];
    part.first_feature = p == 0 ? 0 : cut_features[p - 1];
    part.last_feature = cut_features[p];
    part.first_location = p == 0 ? 0 : cut_locations[p - 1];
    part.last_location = cut_locations[p];
    // Ranges tile the feature space: a part starts at its first feature
    // (the first part at 0) and ends where the next one starts.
    if (p > 0) {
      const std::uint64_t byte = part.first_feature * sizeof(feature_t);
      if (const std::uint64_t c = byte / chunk_bytes; c != held) {
        if (!chunk) chunk.reset(new char[chunk_bytes]);
        bool matches = false;
        if (!read_chunk(features_, c, chunk.get(), matches)) throw_unreadable(features_);
        if (!matches) throw_mismatch(features_, c);
        held = c;
      }
      // chunk_bytes is a multiple of a feature's size: no feature straddles two.
      feature_t first = 0;
      std::memcpy(&first, chunk.get() + (byte - held * chunk_bytes), sizeof first);
      part.range.begin = first;
      parts[p - 1].range.end = first;
    }
  }
  return parts;
}

std::vector<IndexPart> PartialDatabase::plan_by_bytes(std::uint64_t max_bytes) const {
  std::vector<std::uint64_t> cut_features, cut_locations;
  std::uint64_t features = 0, locations = 0;  // of the part being filled
  std::uint64_t first_location = 0;
  // The most one feature needs alone.
  const std::uint64_t least = feature_count() == 0 ? 0 : index_bytes(1, longest_list_);
  if (least > max_bytes)
    throw std::runtime_error("database '" + path_.string() + "': parts of at most " +
                             std::to_string(max_bytes) +
                             " bytes cannot hold its longest location list (with its lookup); "
                             "allow at least " + std::to_string(least) + " bytes");
  for_each_length_window([&](std::uint64_t, std::uint64_t n, std::uint64_t window_locations,
                             auto each) {
    // index_bytes grows with features and locations: a window whose whole
    // adds to the part within max_bytes has no cut.
    if (index_bytes(features + n, locations + window_locations) <= max_bytes) {
      features += n;
      locations += window_locations;
      return;
    }
    each([&](std::uint64_t feature, std::uint64_t length) {
      if (features > 0 && index_bytes(features + 1, locations + length) > max_bytes) {
        cut_features.push_back(feature);
        cut_locations.push_back(first_location + locations);
        first_location += locations;
        features = locations = 0;
      }
      ++features;
      locations += length;
    });
  });
  cut_features.push_back(feature_count());
  cut_locations.push_back(location_count());
  return parts_at(cut_features, cut_locations);
}

std::vector<IndexPart> PartialDatabase::plan_parts(std::size_t parts) const {
  if (parts == 0) throw std::invalid_argument("the number of parts must be at least 1");
  const std::uint64_t features = feature_count();
  const std::uint64_t count =
      std::clamp<std::uint64_t>(parts, 1, std::max<std::uint64_t>(features, 1));
  // A feature's weight: its bytes in the arrays (the lookup grows with the
  // features, about in step).
  const auto weight = [](std::uint64_t length) {
    return sizeof(feature_t) + sizeof(std::uint64_t) + length * sizeof(Location);
  };
  const unsigned __int128 total =
      features * (sizeof(feature_t) + sizeof(std::uint64_t)) + location_count() * sizeof(Location);
  std::vector<std::uint64_t> cut_features, cut_locations;
  unsigned __int128 sum = 0;
  std::uint64_t locations = 0;
  for_each_length_window([&](std::uint64_t first, std::uint64_t n, std::uint64_t window_locations,
                             auto each) {
    // No cut in the window when the part being filled (the last takes the
    // rest) does not reach its share by the window's end and the features
    // left do not run out there: passed whole (the sum only grows).
    const std::uint64_t closed = cut_features.size();
    const unsigned __int128 end_sum =
        sum + n * (sizeof(feature_t) + sizeof(std::uint64_t)) + window_locations * sizeof(Location);
    const std::uint64_t must_cut = features - (count - closed);  // the feature where they run out
    if (closed + 1 >= count ||
        (end_sum * count < total * (closed + 1) && !(must_cut >= first && must_cut < first + n))) {
      sum = end_sum;
      locations += window_locations;
      return;
    }
    each([&](std::uint64_t feature, std::uint64_t length) {
      sum += weight(length);
      locations += length;
      const std::uint64_t closed = cut_features.size();
      if (closed + 1 >= count) return;  // the last part takes the rest
      // Close part `closed` here when it has its share of the bytes, or when
      // every later part needs one of the features left.
      if (sum * count >= total * (closed + 1) || features - feature - 1 == count - closed - 1) {
        cut_features.push_back(feature + 1);
        cut_locations.push_back(locations);
      }
    });
  });
  cut_features.push_back(features);
  cut_locations.push_back(location_count());
  return parts_at(cut_features, cut_locations);
}

// Version 4: a part's offsets from its counts, its locations decoded from
// their ids a block at a time (the encoded block beside the decoded part).
void PartialDatabase::read_compact_part(const IndexPart& part, std::uint64_t* offsets,
                                        Location* locations, unsigned threads) const {
  const std::uint32_t cw = offsets_.info.element_size, lw = locations_.info.element_size;
  const std::uint64_t n = part.features();
  std::vector<char> counts(std::size_t(n * cw));
  read_verified(offsets_, part.first_feature * cw, part.last_feature * cw, counts.data(), threads);
  compact::offsets_from_counts(counts.data(), std::size_t(n), cw, part.first_location, offsets,
                               threads);
  const compact::WindowIds ids(meta_.db.targets);
  // The locations a block at a time, the next block read (and its chunks
  // verified) while this one is decoded, as stream_section does.
  const std::uint64_t block = stream_window_bytes / lw, total = part.locations();
  const std::size_t block_bytes = std::size_t(std::min(block, total) * lw);
  std::vector<char> encoded[2] = {std::vector<char>(block_bytes),
                                  std::vector<char>(total > block ? block_bytes : 0)};
  const auto read_block = [&](std::uint64_t done, char* into) {
    const std::uint64_t first = part.first_location + done;
    read_verified(locations_, first * lw, (first + std::min(block, total - done)) * lw, into,
                  threads);
  };
  host::BackgroundTask next;  // the next block's read
  if (total > 0) read_block(0, encoded[0].data());
  for (std::uint64_t done = 0, w = 0; done < total; done += block, ++w) {
    next.wait();  // rethrows the read's failure
    const std::size_t count = std::size_t(std::min(block, total - done));
    const char* block_ids = encoded[w % 2].data();
    if (done + count < total)
      next.start([&, at = done + block, into = encoded[(w + 1) % 2].data()] { read_block(at, into); });
    std::atomic<bool> bad{false};
    host::parallel_ranges(count, parts_of(count / (1 << 16) + 1, threads),
                          [&](std::size_t a, std::size_t b) {
      if (compact::decode_locations(block_ids + a * lw, b - a, ids, lw, locations + done + a) <
          b - a)
        bad = true;
    });
    if (bad) {  // the file was checked when opened: changed since, under valid checksums
      try {
        next.wait();  // this block's problem comes first in the file
      } catch (const std::exception&) {
      }
      throw std::runtime_error("database '" + path_.string() +
                               "': a location outside the targets' windows");
    }
  }
}

FeatureIndex PartialDatabase::load_part(const IndexPart& part, unsigned threads) const {
  const std::uint64_t n = part.features();
  IndexArray<feature_t> features = host::make_uninitialized_large_vector<feature_t>(n);
  IndexArray<std::uint64_t> offsets = host::make_uninitialized_large_vector<std::uint64_t>(n + 1);
  IndexArray<Location> locations =
      host::make_uninitialized_large_vector<Location>(part.locations());
  read_verified(features_, part.first_feature * sizeof(feature_t),
                part.last_feature * sizeof(feature_t), features.data(), threads);
  if (compact()) {
    read_compact_part(part, offsets.data(), locations.data(), threads);
  } else {
    read_verified(offsets_, part.first_feature * sizeof(std::uint64_t),
                  (part.last_feature + 1) * sizeof(std::uint64_t), offsets.data(), threads);
    read_verified(locations_, part.first_location * sizeof(Location),
                  part.last_location * sizeof(Location), locations.data(), threads);
  }
  const auto fail = [&](const std::string& problem) {
    throw std::runtime_error("database '" + path_.string() + "': part of features " +
                             std::to_string(part.first_feature) + " to " +
                             std::to_string(part.last_feature) + ": " + problem);
  };
  if (offsets[0] != part.first_location || offsets[n] != part.last_location)
    fail("its offsets do not match the plan (a part of another database?)");
  if (n > 0 && (features[0] < part.range.begin || features[n - 1] >= part.range.end))
    fail("its features lie outside the part's range");
  const std::uint64_t base = offsets[0];
  host::parallel_ranges(n + 1, host::parts_for(n + 1, std::size_t(1) << 20),
                        [&](std::size_t a, std::size_t b) {
    for (std::size_t i = a; i < b; ++i) offsets[i] -= base;
  });
  try {
    return FeatureIndex(std::move(features), std::move(offsets), std::move(locations));
  } catch (const std::invalid_argument& e) {
    fail(std::string("corrupted ") + e.what());
  }
  return {};
}

}  // namespace metawarp::db
