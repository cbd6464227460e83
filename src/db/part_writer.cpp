#include "db/part_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "db/compact_index.hpp"
#include "db/file_format.hpp"
#include "db/file_writer.hpp"
#include "output/atomic_file.hpp"
#include "output/file_descriptor.hpp"
#include "output/remove_on_failure.hpp"
#include "output/stale_temporaries.hpp"
#include "output/write_error.hpp"

namespace metawarp::db {
namespace {

namespace ff = file_format;

// Counts or locations encoded per buffer.
constexpr std::size_t elements_per_block = std::size_t(1) << 20;

// One index array on its way to the file: a spill file next to the database,
// `<database>.<array>.tmp-<pid>`, so that a process killed before it could
// remove it leaves a name the next write of the same database removes
// (output/stale_temporaries.hpp: the database's AtomicFile, made first,
// removed the stale ones).
class Spill {
 public:
  Spill(const std::filesystem::path& database, const std::string& array)
      : database_(database.string()), path_(spill_path(database, array)), remove_(path_) {
    fd_ = output::FileDescriptor(::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
    if (!fd_.is_open()) {
      const int error = errno;
      remove_.keep();  // not ours: never remove a file this process did not create
      fail("cannot create the spill file", error);
    }
  }

  void append(const void* data, std::size_t n) {
    const auto* in = static_cast<const char*>(data);
    while (n > 0) {
      const ssize_t written = ::pwrite(fd_.get(), in, n, off_t(size_));
      if (written < 0) {
        if (errno == EINTR) continue;
        fail("writing the spill file failed", errno);
      }
      in += written;
      n -= std::size_t(written);
      size_ += std::uint64_t(written);
    }
  }

  // Bytes [offset, offset + n) of the spill, in a buffer of the calling
  // thread's own, one for all spills (valid until it reads a spill again).
  const char* read(std::uint64_t offset, std::size_t n) const {
    thread_local std::vector<char> buffer;
    if (buffer.size() < n) buffer.resize(n);
    read_at(offset, buffer.data(), n);
    return buffer.data();
  }

  std::uint64_t size() const { return size_; }

 private:
  static std::filesystem::path spill_path(const std::filesystem::path& database,
                                          const std::string& array) {
    std::filesystem::path base = database;
    base += "." + array;
    return output::temporary_path(base, ::getpid());
  }

  void read_at(std::uint64_t offset, char* out, std::size_t n) const {
    while (n > 0) {
      const ssize_t got = ::pread(fd_.get(), out, n, off_t(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) fail("reading the spill file back failed", got < 0 ? errno : EIO);
      out += got;
      n -= std::size_t(got);
      offset += std::uint64_t(got);
    }
  }

  [[noreturn]] void fail(const std::string& what, int error) const {
    throw output::write_error("database", database_,
                              what + " '" + path_.string() + "': " + std::strerror(error));
  }

  std::string database_;  // for messages
  std::filesystem::path path_;
  output::RemoveOnFailure remove_;  // never kept: the spill always goes
  output::FileDescriptor fd_;
  std::uint64_t size_ = 0;
};

// The targets' window counts, which fix the global window ids.
std::vector<std::uint32_t> window_counts(std::span<const Target> targets) {
  std::vector<std::uint32_t> counts;
  counts.reserve(targets.size());
  for (const Target& t : targets) counts.push_back(t.windows);
  return counts;
}

}  // namespace

struct PartWriter::State {
  State(const std::filesystem::path& database, std::uint32_t max_locations,
        std::span<const Target> targets, unsigned threads_, output::Sync sync_)
      : file(database.string(), output::OnFailure::keep_existing, "database",
             output::Writes::at_offsets),
        threads(threads_),
        sync(sync_),
        count_width(compact::count_width(max_locations)),
        windows(window_counts(targets)),
        ids(targets),
        location_width(compact::location_width(ids.total())),
        features(file.target().path, "features"),
        counts(file.target().path, "counts"),
        locations(file.target().path, "locations") {}

  output::AtomicFile file;  // first: checks the path before the spills exist
  unsigned threads;
  output::Sync sync;
  std::uint32_t count_width;
  std::vector<std::uint32_t> windows;  // to check finish()'s targets against
  compact::WindowIds ids;
  std::uint32_t location_width;
  Spill features, counts, locations;
  std::uint64_t feature_count = 0, location_count = 0;
  std::optional<feature_t> last_feature;
  bool finished = false;
};

PartWriter::PartWriter(const std::filesystem::path& database,
                       std::uint32_t max_locations_per_feature, std::span<const Target> targets,
                       unsigned threads, output::Sync sync)
    : state_(std::make_unique<State>(database, max_locations_per_feature, targets, threads,
                                     sync)) {}

PartWriter::~PartWriter() = default;

std::uint64_t PartWriter::features() const { return state_->feature_count; }
std::uint64_t PartWriter::locations() const { return state_->location_count; }

void PartWriter::append(const FeatureIndex& part) {
  State& s = *state_;
  if (s.finished) throw std::logic_error("PartWriter::append after finish");
  const auto& features = part.features();
  if (!features.empty() && s.last_feature && features.front() <= *s.last_feature)
    throw std::invalid_argument("database part out of order: its first feature " +
                                std::to_string(features.front()) + " is not above " +
                                std::to_string(*s.last_feature));
  s.features.append(features.data(), features.size() * sizeof(feature_t));
  // The lengths and the locations encoded a block at a time, as the file
  // holds them (the counts need no rebasing: they are the offsets' steps).
  const auto& offsets = part.offsets();
  const std::size_t n = features.size();
  std::vector<char> encoded;
  for (std::size_t first = 0; first < n; first += elements_per_block) {
    const std::size_t count = std::min(elements_per_block, n - first);
    encoded.resize(count * s.count_width);
    compact::encode_counts(offsets.data(), first, count, s.count_width, encoded.data());
    s.counts.append(encoded.data(), encoded.size());
  }
  const auto& locations = part.locations();
  for (std::size_t first = 0; first < locations.size(); first += elements_per_block) {
    const std::size_t count = std::min(elements_per_block, locations.size() - first);
    encoded.resize(count * s.location_width);
    compact::encode_locations(locations.data() + first, count, s.ids, s.location_width,
                              encoded.data());
    s.locations.append(encoded.data(), encoded.size());
  }
  if (!features.empty()) s.last_feature = features.back();
  s.feature_count += n;
  s.location_count += locations.size();
}

void PartWriter::finish(const DatabaseParams& params, const std::vector<Target>& targets,
                        const taxonomy::Taxonomy& taxonomy) {
  State& s = *state_;
  if (s.finished) throw std::logic_error("PartWriter::finish twice");
  s.finished = true;
  if (compact::count_width(params.max_locations_per_feature) != s.count_width ||
      window_counts(targets) != s.windows)
    throw std::logic_error("PartWriter::finish: the parameters or targets differ from those the "
                           "parts were encoded for");
  // The spills are copied into the file piece by piece.
  IndexSource source;
  source.features = s.feature_count;
  source.locations = s.location_count;
  source.feature_values = [&s](unsigned, std::uint64_t first, std::size_t n) {
    return reinterpret_cast<const feature_t*>(
        s.features.read(first * sizeof(feature_t), n * sizeof(feature_t)));
  };
  source.count_bytes = [&s](unsigned, std::uint64_t first, std::size_t n) {
    return s.counts.read(first, n);
  };
  source.location_bytes = [&s](unsigned, std::uint64_t first, std::size_t n) {
    return s.locations.read(first, n);
  };
  write_database(s.file, params, targets, taxonomy, source, s.threads, s.sync);
}

}  // namespace metawarp::db
