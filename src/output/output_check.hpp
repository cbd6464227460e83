#pragma once
// The distinctness rule: no output may be the same file as an input, the
// database or another output. Checked before any work starts, by the CLI
// commands and the build and query drivers (which know the expanded inputs).
#include <string>
#include <string_view>
#include <vector>

#include "output/output_path.hpp"

namespace metawarp::output {

// A path and what it is to the command, for messages: "--report", "database",
// "reads", "reference".
struct NamedPath {
  std::string label;
  std::string path;
};

// Throws std::runtime_error naming both paths (with their labels) when
//  - an output is the same file as an input (the database included) or as
//    another output: the same device and inode for existing regular files
//    and pipes (symbolic links followed, hard links and spellings like ./x
//    caught; /dev/stdout is the file or pipe behind it), the same resolved
//    path (absolute, symlinks resolved, dangling ones too) for files not yet
//    there; character devices (/dev/null, a terminal) may be shared;
//  - '-' (standard output) is more than one output, or '-' (standard input)
//    more than one input ("standard input is given twice");
//  - '-' is an output while standard output is a regular file or pipe that
//    is an input or another output, or '-' an input while standard input is
//    a file that is an output.
// Empty paths (an output not written) are skipped. Reads file metadata only.
void check_distinct(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs);

// What a command checks about its outputs before it starts any work, so that
// a bad output path costs no build or query time and removes nothing: the
// output path rule (output_path.hpp) for every output written to a path (not
// "-", not ""), then check_distinct. `noun` names the outputs in messages
// ("database"; empty for query outputs); `writes` is how they are written.
void check_outputs(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs,
                   std::string_view noun = {}, Writes writes = Writes::in_order);

}  // namespace metawarp::output
