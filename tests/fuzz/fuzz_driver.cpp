// Runs a harness without libFuzzer, deterministically: every seed, every
// committed regression input, then a fixed-seed sequence of mutations of
// them (bit flips, byte inserts and deletes, interesting bytes, chunk
// duplication, truncation, splices of two inputs). Built by any compiler,
// so the sanitizer build of CI runs it (ctest label cpu).
//
//   fuzz_driver_NAME [--iterations N] [--max-seconds S] [--seed X] [--regressions DIR]
//   fuzz_driver_NAME --write-seeds DIR    the seeds as files, a corpus for libFuzzer
//   fuzz_driver_NAME FILE...              runs these inputs only (a crash to reproduce)
//
// When an input fails (a crash, a sanitizer report, an exception that is not
// a documented error, an oracle that disagrees) it is written to
// fuzz-failure-<program name>.bin in the working directory before the
// process ends.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <typeinfo>

#include "fuzz_harness.hpp"

namespace fs = std::filesystem;

extern "C" void __sanitizer_set_death_callback(void (*callback)()) __attribute__((weak));

namespace {

// The input being run, for the failure handlers (which may only use
// async-signal-safe calls: write(2), not streams).
const std::string* current_input = nullptr;
char failure_file[256] = "fuzz-failure.bin";

void save_current_input() {
  if (current_input == nullptr) return;
  const int fd = ::open(failure_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  std::size_t done = 0;
  while (done < current_input->size()) {
    const ssize_t n = ::write(fd, current_input->data() + done, current_input->size() - done);
    if (n <= 0) break;
    done += std::size_t(n);
  }
  ::close(fd);
  static constexpr char note[] = "fuzz_driver: the failing input is in ";
  [[maybe_unused]] ssize_t ignored = ::write(STDERR_FILENO, note, sizeof note - 1);
  ignored = ::write(STDERR_FILENO, failure_file, std::strlen(failure_file));
  ignored = ::write(STDERR_FILENO, "\n", 1);
  current_input = nullptr;
}

void on_fatal_signal(int signal) {
  save_current_input();
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

void install_failure_handlers(const std::string& name) {
  std::snprintf(failure_file, sizeof failure_file, "fuzz-failure-%s.bin", name.c_str());
  for (const int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
    std::signal(signal, on_fatal_signal);
  if (__sanitizer_set_death_callback != nullptr) __sanitizer_set_death_callback(save_current_input);
}

void run(const std::string& input) {
  current_input = &input;
  try {
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
  } catch (const std::exception& error) {
    metawarp::fuzz::report_bug(std::string("undocumented exception ") + typeid(error).name() +
                               ": " + error.what());
  } catch (...) {
    metawarp::fuzz::report_bug("an exception that is not a std::exception");
  }
  current_input = nullptr;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Bytes that mean something to the parsers.
constexpr char interesting[] = {'\n',   '\r', '>', '@', '+', '\t', '|', '\0',   '\x1f', '\x8b',
                                '\xff', '0',  '1', 'A', ' ', '.',  '=', '\x7f', '\x80', '-'};

class Mutator {
 public:
  Mutator(std::uint64_t seed, std::vector<std::string> corpus)
      : random_(seed), corpus_(std::move(corpus)) {}

  // A mutation of a corpus input, 1 to 4 steps. Some are kept as corpus
  // inputs, so that steps pile up.
  std::string next() {
    std::string input = pick();
    const int steps = 1 + int(random_() % 4);
    for (int step = 0; step < steps; ++step) mutate(input);
    if (random_() % 16 == 0 && corpus_.size() < max_corpus) corpus_.push_back(input);
    return input;
  }

 private:
  static constexpr std::size_t max_corpus = 512;
  static constexpr std::size_t max_size = std::size_t{1} << 16;

  const std::string& pick() { return corpus_[random_() % corpus_.size()]; }
  std::size_t position(const std::string& input) { return random_() % (input.size() + 1); }

  void mutate(std::string& input) {
    switch (random_() % 9) {
      case 0:  // flip a bit
        if (!input.empty()) input[random_() % input.size()] ^= char(1u << (random_() % 8));
        break;
      case 1:  // an interesting byte instead of one
        if (!input.empty())
          input[random_() % input.size()] = interesting[random_() % sizeof interesting];
        break;
      case 2:  // insert an interesting or random byte
        input.insert(position(input), 1,
                     random_() % 2 ? interesting[random_() % sizeof interesting] : char(random_()));
        break;
      case 3: {  // delete a range
        const std::size_t at = position(input);
        input.erase(at, 1 + random_() % 16);
        break;
      }
      case 4: {  // duplicate a chunk somewhere else
        const std::size_t at = position(input);
        const std::string chunk = input.substr(at, 1 + random_() % 64);
        input.insert(position(input), chunk);
        break;
      }
      case 5:  // truncate
        input.resize(position(input));
        break;
      case 6: {  // splice: this input's start, another's end
        const std::string& other = pick();
        input = input.substr(0, position(input)) + other.substr(position(other));
        break;
      }
      case 7: {  // insert a piece of another input
        const std::string& other = pick();
        const std::size_t at = position(other);
        input.insert(position(input), other.substr(at, 1 + random_() % 128));
        break;
      }
      case 8:  // repeat a byte many times (long lines, runs of zeros)
        input.insert(position(input), 1 + random_() % 2048,
                     input.empty() ? '\0' : input[random_() % input.size()]);
        break;
    }
    if (input.size() > max_size) input.resize(max_size);
  }

  std::mt19937_64 random_;
  std::vector<std::string> corpus_;
};

struct Options {
  std::uint64_t iterations = 20000;
  double max_seconds = 60;
  std::uint64_t seed = 1;
  std::string regressions;
  std::string write_seeds;
  std::vector<std::string> files;
};

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&] {
      if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
      return std::string(argv[++i]);
    };
    if (arg == "--iterations")
      options.iterations = std::stoull(value());
    else if (arg == "--max-seconds")
      options.max_seconds = std::stod(value());
    else if (arg == "--seed")
      options.seed = std::stoull(value());
    else if (arg == "--regressions")
      options.regressions = value();
    else if (arg == "--write-seeds")
      options.write_seeds = value();
    else if (arg.starts_with("--"))
      throw std::invalid_argument("unknown option " + arg);
    else
      options.files.push_back(arg);
  }
  return options;
}

int write_seeds(const std::vector<std::string>& seeds, const fs::path& dir) {
  fs::create_directories(dir);
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    std::ofstream(dir / ("seed-" + std::to_string(i)), std::ios::binary)
        .write(seeds[i].data(), std::streamsize(seeds[i].size()));
  }
  std::cout << "wrote " << seeds.size() << " seeds to " << dir.string() << "\n";
  return 0;
}

std::vector<std::string> regression_inputs(const std::string& dir) {
  std::vector<fs::path> paths;
  if (!dir.empty() && fs::is_directory(dir))
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.is_regular_file()) paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());
  std::vector<std::string> inputs;
  for (const fs::path& path : paths) inputs.push_back(read_file(path));
  return inputs;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string name = fs::path(argv[0]).filename().string();
  try {
    const Options options = parse_options(argc, argv);
    install_failure_handlers(name);
    if (!options.write_seeds.empty()) return write_seeds(fuzz_seeds(), options.write_seeds);
    if (!options.files.empty()) {
      for (const std::string& file : options.files) run(read_file(file));
      std::cout << name << ": ran " << options.files.size() << " inputs\n";
      return 0;
    }
    const auto start = std::chrono::steady_clock::now();
    const auto seconds = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    std::vector<std::string> corpus = fuzz_seeds();
    const std::size_t seed_count = corpus.size();
    for (std::string& input : regression_inputs(options.regressions))
      corpus.push_back(std::move(input));
    for (const std::string& input : corpus) run(input);
    Mutator mutator(options.seed, corpus);
    std::uint64_t mutated = 0;
    while (mutated < options.iterations && seconds() < options.max_seconds) {
      run(mutator.next());
      ++mutated;
    }
    std::cout << name << ": " << seed_count << " seeds, " << corpus.size() - seed_count
              << " regression inputs and " << mutated << " mutations (seed " << options.seed
              << ") in " << seconds() << " s, no failure\n";
  } catch (const std::exception& error) {
    std::cerr << name << ": " << error.what() << "\n";
    return 2;
  }
  return 0;
}
