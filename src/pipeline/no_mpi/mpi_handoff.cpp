// The MPI engine's stand-in in every binary but metawarp-mpi (src/CMakeLists.txt
// says why the engine is a binary of its own): `--mpi` re-executes the same
// command line as metawarp-mpi, found beside this binary, in this process
// (mpirun's rank, environment and descriptors stay as they are); without it
// --mpi says that it was not compiled in.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "pipeline/query/mpi_engine.hpp"

namespace metawarp::pipeline {

namespace {

// metawarp-mpi in this binary's folder (links to metawarp resolved), or an
// empty path where there is none.
std::filesystem::path mpi_binary() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return {};
  std::filesystem::path binary = self.parent_path() / "metawarp-mpi";
  return ::access(binary.c_str(), X_OK) == 0 ? binary : std::filesystem::path();
}

// This process's command line, as it was started.
std::vector<std::string> own_arguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> arguments;
  for (std::size_t at = 0; at < all.size();) {
    const std::size_t end = all.find('\0', at);
    arguments.push_back(all.substr(at, end - at));
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return arguments;
}

}  // namespace

bool mpi_compiled_in() { return !mpi_binary().empty(); }

void mpi_handoff() {
  const std::filesystem::path binary = mpi_binary();
  if (binary.empty())
    throw std::runtime_error(
        "--mpi: this metawarp was built without MPI (install OpenMPI, e.g. libopenmpi-dev, and "
        "rebuild: metawarp-mpi is built beside metawarp), so it cannot run over several ranks");
  std::vector<std::string> arguments = own_arguments();
  if (arguments.empty()) throw std::runtime_error("--mpi: cannot read this process's command line");
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  std::fflush(nullptr);  // nothing written so far is lost to the new image
  ::execv(binary.c_str(), argv.data());
  throw std::runtime_error("--mpi: cannot run " + binary.string() + ": " + std::strerror(errno));
}

// Reached only where mpi_handoff found no metawarp-mpi: it throws.
MpiPlace mpi_place() {
  mpi_handoff();
  return {};
}

std::unique_ptr<MpiQueryEngine> make_mpi_engine(const std::string&, const ClassifierOptions&,
                                                unsigned, const ShardLayout*) {
  mpi_place();
  return nullptr;
}

}  // namespace metawarp::pipeline
