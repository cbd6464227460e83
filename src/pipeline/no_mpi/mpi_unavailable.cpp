// Without MPI at build time: --mpi says so (src/CMakeLists.txt, METAWARP_MPI).
#include "pipeline/query/mpi_engine.hpp"

namespace metawarp::pipeline {

bool mpi_compiled_in() { return false; }

MpiPlace mpi_place() {
  throw std::runtime_error(
      "--mpi: this metawarp was built without MPI (install OpenMPI, e.g. libopenmpi-dev, and "
      "rebuild), so it cannot run over several ranks");
}

std::unique_ptr<MpiQueryEngine> make_mpi_engine(const std::string&, const ClassifierOptions&,
                                                unsigned) {
  mpi_place();
  return nullptr;
}

}  // namespace metawarp::pipeline
