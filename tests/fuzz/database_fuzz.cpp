// db::load on damaged databases: the seeds are small valid databases
// (tests/db/sample_database.hpp) written by db::save, which the fuzzer mutates. Checksums would
// stop most mutations at the first check, so an option bit re-seals them first (the header's and
// each section's where the table says it lies), to reach the checks behind. A database that loads
// is looked through: every feature's locations lie inside their targets' windows, every target's
// taxon has a lineage that ends at the root.
//
// Input: one option byte (bit 0: re-seal the checksums), then the file.
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "db/checksum.hpp"
#include "db/database.hpp"
#include "db/file_format.hpp"
#include "fuzz_harness.hpp"
#include "sample_database.hpp"

using namespace metawarp;
namespace fs = std::filesystem;
namespace ff = db::file_format;

namespace {

// A file of its own for this process, removed at exit.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& name)
      : path_(fs::temp_directory_path() /
              ("metawarp_fuzz_" + std::to_string(::getpid()) + "_" + name)) {}
  ~ScratchFile() {
    std::error_code ignored;
    fs::remove(path_, ignored);
  }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void write_file(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

std::uint32_t u32_at(const std::string& bytes, std::size_t at) {
  std::uint32_t value;
  std::memcpy(&value, bytes.data() + at, 4);
  return value;
}

std::uint64_t u64_at(const std::string& bytes, std::size_t at) {
  std::uint64_t value;
  std::memcpy(&value, bytes.data() + at, 8);
  return value;
}

void set_u64(std::string& bytes, std::size_t at, std::uint64_t value) {
  std::memcpy(bytes.data() + at, &value, 8);
}

// Section checksums where the table's offset and size fit the file, then the header's.
void reseal(std::string& bytes) {
  if (bytes.size() < ff::header_bytes) return;
  for (std::size_t s = 0; s < ff::section_count; ++s) {
    const std::size_t entry = ff::fixed_header_bytes + s * ff::section_entry_bytes;
    const std::uint64_t offset = u64_at(bytes, entry + 8), size = u64_at(bytes, entry + 16);
    if (offset <= bytes.size() && size <= bytes.size() - offset)
      set_u64(bytes, entry + 32,
              db::section_checksum(u32_at(bytes, 4), bytes.data() + offset, size));
  }
  set_u64(bytes, ff::header_bytes - 8, db::checksum64(bytes.data(), ff::header_bytes - 8));
}

void look_through(const db::Database& database) {
  const db::FeatureIndex& index = database.index;
  for (const db::feature_t feature : index.features()) {
    for (const db::Location& location : index.find(feature)) {
      if (location.target >= database.targets.size() ||
          location.window >= database.targets[location.target].windows)
        fuzz::report_bug("a loaded database has a location outside its targets' windows");
    }
  }
  // A mapped target's lineage ends at the root (taxid 1): a taxon that is its
  // own parent, or a cycle, is a rejected load (issue 25, case 10).
  for (const db::Target& target : database.targets) {
    const std::vector<taxonomy::taxid_t> lineage = database.taxonomy.lineage(target.taxid);
    if (!lineage.empty() && lineage.back() != taxonomy::root_taxon)
      fuzz::report_bug("a loaded database has taxid " + std::to_string(target.taxid) +
                       " whose lineage ends at " + std::to_string(lineage.back()));
  }
}

// `bytes` (a saved database) with the parent of taxon `id` set to `parent`
// in the taxonomy nodes section; the checksums are left to the harness's
// re-seal.
std::string with_parent(std::string bytes, taxonomy::taxid_t id, taxonomy::taxid_t parent) {
  const std::size_t entry = ff::fixed_header_bytes + 1 * ff::section_entry_bytes;
  std::size_t at = u64_at(bytes, entry + 8);
  const std::size_t end = at + u64_at(bytes, entry + 16);
  while (at < end) {  // u32 id, u32 parent, u8 rank, u32 name length, name
    if (u32_at(bytes, at) == id) {
      std::memcpy(bytes.data() + at + 4, &parent, 4);
      return bytes;
    }
    at += 9 + 4 + u32_at(bytes, at + 9);
  }
  fuzz::report_bug("seed: no taxon " + std::to_string(id));
}

std::string saved_bytes(const db::Database& database) {
  const ScratchFile file("seed.mwdb");
  db::save(database, file.path());
  std::ifstream in(file.path(), std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::InputBytes input(data, size);
  const std::uint8_t options = input.option();
  std::string bytes = input.rest();
  if (options & 1) reseal(bytes);
  static const ScratchFile file("load.mwdb");
  write_file(file.path(), bytes);
  fuzz::documented_error_of([&] { look_through(db::load(file.path())); });
  return 0;
}

std::vector<std::string> fuzz_seeds() {
  std::vector<std::string> seeds;
  for (const std::uint64_t seed : {1, 2}) {
    const std::string bytes = saved_bytes(db::test::make_database(seed, 150));
    seeds.push_back(fuzz::make_input("\x01", {bytes}));
    seeds.push_back(fuzz::make_input(std::string(1, '\0'), {bytes}));
  }
  seeds.push_back(fuzz::make_input("\x01", {saved_bytes(db::Database{})}));
  // A species that is its own parent, and a species and genus that are each
  // other's (sample_database.hpp: 562 under 561).
  const std::string sample = saved_bytes(db::test::make_database(1, 150));
  seeds.push_back(fuzz::make_input("\x01", {with_parent(sample, 562, 562)}));
  seeds.push_back(fuzz::make_input("\x01", {with_parent(sample, 561, 562)}));
  return seeds;
}
