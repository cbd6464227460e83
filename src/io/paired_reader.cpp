#include "io/paired_reader.hpp"

namespace metawarp::io {

bool mates_match(std::string_view id1, std::string_view id2) {
  if (id1 == id2) return true;
  const auto strip = [](std::string_view id, std::string_view suffix) {
    return id.size() >= suffix.size() && id.substr(id.size() - suffix.size()) == suffix
               ? std::optional<std::string_view>(id.substr(0, id.size() - suffix.size()))
               : std::nullopt;
  };
  const auto fragment1 = strip(id1, "/1");
  const auto fragment2 = strip(id2, "/2");
  return fragment1 && fragment2 && *fragment1 == *fragment2;
}

PairedReader::PairedReader(const std::string& path1, const std::string& path2)
    : first_(path1), second_(std::in_place, path2) {}

PairedReader::PairedReader(const std::string& interleaved_path) : first_(interleaved_path) {}

namespace {

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

std::string display(const std::string& path) { return path == "-" ? "<stdin>" : path; }

}  // namespace

bool PairedReader::next(SequenceRecord& mate1, SequenceRecord& mate2) {
  if (!second_) {
    const std::string file = display(first_.path());
    if (!first_.next(mate1)) return false;
    if (!first_.next(mate2)) {
      throw InputError(file, mate1.number + 1,
                       "interleaved file has an odd number of records: mate of " +
                           quoted(mate1.id()) + " missing");
    }
    if (!mates_match(mate1.id(), mate2.id())) {
      throw InputError(file, mate2.number,
                       "interleaved mates differ: " + quoted(mate1.id()) + " (record " +
                           std::to_string(mate1.number) + ") and " + quoted(mate2.id()));
    }
    return true;
  }

  const std::string file1 = display(first_.path());
  const std::string file2 = display(second_->path());
  const bool has1 = first_.next(mate1);
  const bool has2 = second_->next(mate2);
  if (!has1 && !has2) return false;
  if (has1 != has2) {
    const std::string& longer = has1 ? file1 : file2;
    const std::string& shorter = has1 ? file2 : file1;
    const std::uint64_t record = has1 ? mate1.number : mate2.number;
    throw InputError(file1 + " / " + file2, record,
                     longer + " has more records than " + shorter + " (which ends after record " +
                         std::to_string(record - 1) + ")");
  }
  if (!mates_match(mate1.id(), mate2.id())) {
    throw InputError(file1 + " / " + file2, mate1.number,
                     "mate ids differ: " + quoted(mate1.id()) + " in " + file1 + " and " +
                         quoted(mate2.id()) + " in " + file2);
  }
  return true;
}

}  // namespace metawarp::io
