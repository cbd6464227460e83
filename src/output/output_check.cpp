#include "output/output_check.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <optional>
#include <stdexcept>

namespace metawarp::output {
namespace {

constexpr const char* standard_stream = "-";

// What a path names: a stream, an existing file (device and inode), or a
// place where a file may be created (its resolved path).
struct Identity {
  bool stream = false;
  std::optional<std::pair<dev_t, ino_t>> file;
  std::string place;
};

// What two paths must not share: a regular file, or a pipe (two outputs
// would mix their bytes). A character device (/dev/null, a terminal) may
// take any number of outputs.
std::optional<std::pair<dev_t, ino_t>> identity_of(const struct stat& st) {
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) return std::nullopt;
  return std::pair{st.st_dev, st.st_ino};
}

std::optional<std::pair<dev_t, ino_t>> file_behind(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return std::nullopt;
  return identity_of(st);
}

Identity identify(const std::string& path, int stream_fd) {
  Identity id;
  if (path == standard_stream) {
    id.stream = true;
    id.file = file_behind(stream_fd);
    return id;
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0)
    id.file = identity_of(st);
  else
    id.place = resolve_path(path).string();
  return id;
}

bool same_file(const Identity& a, const Identity& b) {
  if (a.file && b.file) return *a.file == *b.file;
  return !a.place.empty() && a.place == b.place;
}

std::string quoted(const NamedPath& p) {
  return p.label + " '" + p.path + "'";
}

}  // namespace

void check_distinct(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  std::vector<std::pair<const NamedPath*, Identity>> seen_inputs, seen_outputs;
  for (const NamedPath& input : inputs) {
    if (input.path.empty()) continue;
    Identity id = identify(input.path, STDIN_FILENO);
    for (const auto& [other, other_id] : seen_inputs)
      if (id.stream && other_id.stream)
        throw std::runtime_error("standard input is given twice (" + other->label + " and " +
                                 input.label + " are both '-')");
    seen_inputs.emplace_back(&input, std::move(id));
  }
  for (const NamedPath& output : outputs) {
    if (output.path.empty()) continue;
    Identity id = identify(output.path, STDOUT_FILENO);
    for (const auto& [other, other_id] : seen_outputs) {
      if (id.stream && other_id.stream)
        throw std::runtime_error(other->label + " and " + output.label +
                                 " both go to standard output ('-'); at most one output can");
      if (same_file(id, other_id))
        throw std::runtime_error(quoted(*other) + " and " + quoted(output) +
                                 " are the same file; each output needs its own");
    }
    for (const auto& [input, input_id] : seen_inputs)
      if (same_file(id, input_id))
        throw std::runtime_error(quoted(output) + " would replace an input: it is the same file as " +
                                 quoted(*input));
    seen_outputs.emplace_back(&output, std::move(id));
  }
}

void check_outputs(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs,
                   std::string_view noun, Writes writes) {
  for (const NamedPath& out : outputs)
    if (!out.path.empty() && out.path != standard_stream)
      check_output_path(out.path, noun, writes);
  check_distinct(outputs, inputs);
}

}  // namespace metawarp::output
