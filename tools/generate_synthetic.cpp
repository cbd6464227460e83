// generate_synthetic: writes a synthetic metagenomic reference set with known truth.
//
// Genomes are related along a taxonomy tree: each genus has a random ancestor sequence,
// each species is the ancestor with ~10-15 % point substitutions and small indels, each
// strain is its species with ~0.5-2 % more. Reads are simulated from the strains with
// a fragment (insert) size distribution, reverse-complemented mates and sequencing
// errors; a few pairs come from random sequence (truth taxid 0).
//
// Output (in --output-dir):
//   genomes/genome_NNNNNN.fna[.gz]   one file per strain, 80-column FASTA, 1-2 records
//   taxonomy/nodes.dmp, names.dmp     NCBI dump format (13 columns in nodes.dmp)
//   seqid2taxid.map                   Kraken2 two-column map: record id -> strain taxid
//   genomes.tsv                       one row per genome (lineage, length, abundance, reads)
//   reads_R1.fq[.gz], reads_R2.fq[.gz]  read names r<n>/1 and r<n>/2
//   truth.tsv                         read_id taxid species_taxid genus_taxid target
//
// Determinism: every genome, every read batch and the shuffle draw from their own random
// stream derived from (--seed, purpose, index), with a generator implemented here (the
// std:: distributions are implementation-defined), so the same options give the same bytes.
//
// Memory: each of --threads workers makes one genus at a time (ancestor + one species + one
// strain in memory, its reads held until the genus is written), so --total-bases of 100e9
// streams to disk. Reads are shuffled in memory unless
// --stream (implied by --total-bases) is given; then each genome's reads are written right
// after the genome, grouped by genome, and the random pairs come last.

#include <CLI/CLI.hpp>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "metawarp/host/parallel_for.hpp"
#include "metawarp/sketch/encoding.hpp"

namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------
// Random numbers: splitmix64 for seeding, xoshiro256** for the streams.

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Independent streams per (purpose, index), so a genome's bytes do not depend on how many
// random numbers other genomes consumed.
enum class Stream : std::uint64_t {
  layout = 1, ancestor, species, strain, reads, random_reads, shuffle
};

std::uint64_t derive_seed(std::uint64_t seed, Stream purpose, std::uint64_t index) {
  std::uint64_t state = seed;
  std::uint64_t mixed = splitmix64(state) ^ (static_cast<std::uint64_t>(purpose) << 56);
  state = mixed ^ (index * 0xD1B54A32D192ED03ULL);
  return splitmix64(state);
}

class Rng {
 public:
  explicit Rng(std::uint64_t seed) {
    for (auto& word : state_) word = splitmix64(seed);
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  // Uniform in [0, n); the bias of the multiply-shift is below 2^-40 for our n.
  std::uint64_t below(std::uint64_t n) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }

  // Standard normal (Box-Muller, one value per call: simpler to keep deterministic).
  double normal() {
    const double u1 = 1.0 - uniform();  // (0, 1]
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }

  // Number of failures before the first success of a Bernoulli(p) sequence: lets the
  // mutation loops jump from event to event instead of drawing once per base.
  std::uint64_t geometric_gap(double p) {
    if (p <= 0.0) return UINT64_MAX;
    if (p >= 1.0) return 0;
    const double u = 1.0 - uniform();  // (0, 1]
    const double gap = std::floor(std::log(u) / std::log1p(-p));
    return gap >= 1.8e19 ? UINT64_MAX : static_cast<std::uint64_t>(gap);
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::array<std::uint64_t, 4> state_{};
};

// ---------------------------------------------------------------------------------------
// Options.

struct Options {
  std::string output_dir;
  std::uint64_t seed = 1;
  std::size_t threads = 1;
  std::size_t genera = 3;
  std::size_t species_per_genus = 3;
  std::size_t strains_per_species = 2;
  double genome_length = 40000;
  double genome_length_jitter = 0.2;
  double gc = 0.5;
  double species_divergence_min = 0.10;
  double species_divergence_max = 0.15;
  double strain_divergence_min = 0.005;
  double strain_divergence_max = 0.02;
  double indel_fraction = 0.1;
  std::size_t max_indel_length = 10;
  double plasmid_fraction = 0.3;
  double n_fraction = 0.001;
  double n_run_length = 50;
  double read_pairs = 2000;
  std::size_t read_length = 150;
  double insert_mean = 400;
  double insert_sd = 50;
  double error_rate = 0.005;
  double random_fraction = 0.01;
  double abundance_sigma = 0.5;
  double total_bases = 0;
  std::uint64_t taxid_base = 1000000;
  bool gzip = false;
  int gzip_level = 1;  // on DNA: ~10 % larger files than level 6, ~2x faster
  bool taxid_in_headers = false;
  bool stream = false;
  bool quiet = false;
};

// ---------------------------------------------------------------------------------------
// Output files, plain or gzip, buffered.

class OutputFile {
 public:
  // gzip_level 0 writes plain text.
  OutputFile(fs::path path, int gzip_level) : path_(std::move(path)) {
    if (gzip_level > 0) {
      // zlib writes a gzip header with mtime 0, so compressed output is deterministic too.
      const std::string mode = "wb" + std::to_string(std::clamp(gzip_level, 1, 9));
      gz_ = gzopen(path_.c_str(), mode.c_str());
      if (gz_ == nullptr) throw std::runtime_error(path_.string() + ": cannot create file");
      gzbuffer(gz_, 1 << 20);
    } else {
      file_ = std::fopen(path_.c_str(), "wb");
      if (file_ == nullptr) throw std::runtime_error(path_.string() + ": cannot create file");
    }
    buffer_.reserve(kBufferSize);
  }
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile() {
    try {
      close();
    } catch (...) {
      // Destructors must not throw; close() is called explicitly on the success path.
    }
  }

  void write(std::string_view text) {
    buffer_.append(text);
    if (buffer_.size() >= kBufferSize) flush();
  }
  void put(char c) {
    buffer_.push_back(c);
    if (buffer_.size() >= kBufferSize) flush();
  }

  void close() {
    if (gz_ == nullptr && file_ == nullptr) return;
    flush();
    bool ok = true;
    if (gz_ != nullptr) {
      ok = gzclose(gz_) == Z_OK;
      gz_ = nullptr;
    } else {
      ok = std::fclose(file_) == 0;
      file_ = nullptr;
    }
    if (!ok) throw std::runtime_error(path_.string() + ": error while closing (disk full?)");
  }

 private:
  static constexpr std::size_t kBufferSize = 1 << 20;

  void flush() {
    if (buffer_.empty()) return;
    bool ok = true;
    if (gz_ != nullptr) {
      ok = gzwrite(gz_, buffer_.data(), static_cast<unsigned>(buffer_.size())) ==
           static_cast<int>(buffer_.size());
    } else {
      ok = std::fwrite(buffer_.data(), 1, buffer_.size(), file_) == buffer_.size();
    }
    if (!ok) throw std::runtime_error(path_.string() + ": write failed (disk full?)");
    buffer_.clear();
  }

  fs::path path_;
  gzFile gz_ = nullptr;
  std::FILE* file_ = nullptr;
  std::string buffer_;
};

// ---------------------------------------------------------------------------------------
// Sequences.

constexpr std::array<char, 4> kBases{'A', 'C', 'G', 'T'};

int base_code(char base) {
  switch (base) {
    case 'A': return 0;
    case 'C': return 1;
    case 'G': return 2;
    case 'T': return 3;
    default: return -1;
  }
}

std::string reverse_complement(std::string_view sequence) {
  std::string result(sequence.size(), 'N');
  for (std::size_t i = 0; i < sequence.size(); ++i) {
    result[sequence.size() - 1 - i] = metawarp::sketch::complement_base(sequence[i]);
  }
  return result;
}

char random_base(Rng& rng, double gc) {
  const std::uint64_t bits = rng.next();
  const bool strong = static_cast<double>(bits >> 11) * 0x1.0p-53 < gc;
  return strong ? ((bits & 1) ? 'G' : 'C') : ((bits & 1) ? 'T' : 'A');
}

void append_random(std::string& out, std::size_t length, Rng& rng, double gc) {
  for (std::size_t i = 0; i < length; ++i) out.push_back(random_base(rng, gc));
}

// Another base than `base` (or a random one for N).
char substitute(char base, Rng& rng) {
  const int code = base_code(base);
  if (code < 0) return kBases[rng.below(4)];
  return kBases[(code + 1 + static_cast<int>(rng.below(3))) % 4];
}

// Copies `source` with mutation events at `rate` per base: substitutions, and with
// probability `indel_fraction` an insertion or deletion of 1..max_indel bases.
std::string mutate(const std::string& source, double rate, const Options& options, Rng& rng) {
  std::string out;
  out.reserve(source.size() + source.size() / 16 + 64);
  std::size_t pos = 0;
  while (pos < source.size()) {
    const std::uint64_t gap = rng.geometric_gap(rate);
    if (gap >= source.size() - pos) {
      out.append(source, pos, std::string::npos);
      break;
    }
    out.append(source, pos, gap);
    pos += gap;
    if (rng.uniform() < options.indel_fraction) {
      const std::size_t length = 1 + rng.below(options.max_indel_length);
      if (rng.next() & 1) {
        append_random(out, length, rng, options.gc);
        out.push_back(source[pos++]);  // an insertion goes before the current base
      } else {
        pos += std::min(length, source.size() - pos);
      }
    } else {
      out.push_back(substitute(source[pos++], rng));
    }
  }
  return out;
}

// Assembly gaps: runs of N covering about `fraction` of the bases.
void add_n_runs(std::string& sequence, const Options& options, Rng& rng) {
  if (options.n_fraction <= 0.0 || sequence.empty()) return;
  const double mean_run = std::max(1.0, options.n_run_length);
  const double run_start_rate = options.n_fraction / mean_run;
  const auto max_run = static_cast<std::uint64_t>(2 * mean_run - 1);
  std::size_t pos = 0;
  while (true) {
    const std::uint64_t gap = rng.geometric_gap(run_start_rate);
    if (gap >= sequence.size() - pos) break;
    pos += gap;
    const std::size_t run = std::min<std::size_t>(1 + rng.below(max_run), sequence.size() - pos);
    std::fill_n(sequence.begin() + static_cast<std::ptrdiff_t>(pos), run, 'N');
    pos += run;
    if (pos >= sequence.size()) break;
  }
}

// ---------------------------------------------------------------------------------------
// Taxonomy tree and genome plan (small: one entry per taxon / genome).

struct Taxon {
  std::uint64_t taxid;
  std::uint64_t parent;
  std::string rank;
  std::string name;
};

struct Record {
  std::string seqid;
  std::string role;  // "chromosome" or "plasmid"
};

struct GenomePlan {
  std::size_t index;  // 0-based, in generation order
  std::size_t genus;  // 0-based indexes in the tree
  std::size_t species;  // global species index
  std::uint64_t strain_taxid;
  std::uint64_t species_taxid;
  std::uint64_t genus_taxid;
  std::string name;
  std::string file_stem;
  double plasmid_share;  // 0 when the genome has a single record
  std::vector<Record> records;
  double abundance;
  double weight;  // abundance x nominal length: share of the reads
  std::uint64_t read_pairs = 0;
  std::uint64_t length = 0;  // filled in when generated
};

struct GenusPlan {
  std::uint64_t taxid;
  std::size_t nominal_length;
};

struct Plan {
  std::vector<Taxon> taxa;
  std::vector<GenusPlan> genera;
  std::vector<double> species_divergence;   // per global species index
  std::vector<GenomePlan> genomes;
  std::uint64_t random_pairs = 0;
};

std::string pad_number(std::uint64_t value, int width) {
  std::string digits = std::to_string(value);
  if (static_cast<int>(digits.size()) < width) {
    digits.insert(0, static_cast<std::size_t>(width) - digits.size(), '0');
  }
  return digits;
}

// Splits `total` into integer shares proportional to `weights` (largest remainder, ties to
// the lower index), so the counts always add up exactly and do not depend on rounding luck.
std::vector<std::uint64_t> apportion(std::uint64_t total, const std::vector<double>& weights) {
  const double sum = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<std::uint64_t> counts(weights.size(), 0);
  if (weights.empty() || sum <= 0.0) return counts;
  std::vector<std::pair<double, std::size_t>> remainders;
  std::uint64_t assigned = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const double exact = static_cast<double>(total) * weights[i] / sum;
    counts[i] = static_cast<std::uint64_t>(std::floor(exact));
    assigned += counts[i];
    remainders.emplace_back(exact - std::floor(exact), i);
  }
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t i = 0; assigned < total; i = (i + 1) % remainders.size(), ++assigned) {
    ++counts[remainders[i].second];
  }
  return counts;
}

Plan make_plan(const Options& options) {
  Plan plan;
  Rng rng(derive_seed(options.seed, Stream::layout, 0));
  std::uint64_t next_taxid = options.taxid_base;
  auto add = [&](std::uint64_t parent, std::string rank, std::string name) {
    plan.taxa.push_back({next_taxid, parent, std::move(rank), std::move(name)});
    return next_taxid++;
  };
  plan.taxa.push_back({1, 1, "no rank", "root"});
  const auto superkingdom = add(1, "superkingdom", "Bacteria");
  const auto phylum = add(superkingdom, "phylum", "Synthetobacteria");
  const auto klass = add(phylum, "class", "Synthetobacteriia");
  const auto order = add(klass, "order", "Synthetobacteriales");
  const auto family = add(order, "family", "Synthetobacteriaceae");

  std::size_t species_counter = 0;
  for (std::size_t g = 0; g < options.genera; ++g) {
    const std::string genus_name = "Synthgenus" + std::to_string(g + 1);
    const auto genus_taxid = add(family, "genus", genus_name);
    const double jitter = options.genome_length_jitter * (2.0 * rng.uniform() - 1.0);
    const auto length = static_cast<std::size_t>(
        std::max(1.0, std::round(options.genome_length * (1.0 + jitter))));
    plan.genera.push_back({genus_taxid, length});
    for (std::size_t s = 0; s < options.species_per_genus; ++s, ++species_counter) {
      const std::string species_name = genus_name + " species" + std::to_string(s + 1);
      const auto species_taxid = add(genus_taxid, "species", species_name);
      plan.species_divergence.push_back(
          options.species_divergence_min +
          (options.species_divergence_max - options.species_divergence_min) * rng.uniform());
      const bool has_plasmid = rng.uniform() < options.plasmid_fraction;
      const double plasmid_share = has_plasmid ? 0.05 + 0.10 * rng.uniform() : 0.0;
      for (std::size_t t = 0; t < options.strains_per_species; ++t) {
        const std::string strain_name = species_name + " strain" + std::to_string(t + 1);
        const auto strain_taxid = add(species_taxid, "strain", strain_name);
        GenomePlan genome;
        genome.index = plan.genomes.size();
        genome.genus = g;
        genome.species = species_counter;
        genome.strain_taxid = strain_taxid;
        genome.species_taxid = species_taxid;
        genome.genus_taxid = genus_taxid;
        genome.name = strain_name;
        genome.file_stem = "genome_" + pad_number(genome.index + 1, 6);
        genome.plasmid_share = plasmid_share;
        genome.abundance = std::exp(options.abundance_sigma * rng.normal());
        genome.weight = genome.abundance * static_cast<double>(length);
        plan.genomes.push_back(std::move(genome));
      }
    }
  }
  // Record ids look like accessions (SYN0000001.1) and are unique over the whole set.
  std::uint64_t record_counter = 0;
  for (auto& genome : plan.genomes) {
    genome.records.push_back({"SYN" + pad_number(++record_counter, 7) + ".1", "chromosome"});
    if (genome.plasmid_share > 0.0) {
      genome.records.push_back({"SYN" + pad_number(++record_counter, 7) + ".1", "plasmid"});
    }
  }

  const auto total_pairs = static_cast<std::uint64_t>(std::llround(options.read_pairs));
  plan.random_pairs = static_cast<std::uint64_t>(
      std::llround(static_cast<double>(total_pairs) * options.random_fraction));
  std::vector<double> weights;
  for (const auto& genome : plan.genomes) weights.push_back(genome.weight);
  const auto counts = apportion(total_pairs - plan.random_pairs, weights);
  for (std::size_t i = 0; i < plan.genomes.size(); ++i) plan.genomes[i].read_pairs = counts[i];
  return plan;
}

void write_taxonomy(const Plan& plan, const fs::path& dir) {
  fs::create_directories(dir);
  OutputFile nodes(dir / "nodes.dmp", 0);
  OutputFile names(dir / "names.dmp", 0);
  for (const auto& taxon : plan.taxa) {
    // NCBI columns: tax_id, parent, rank, embl code, division id, inherited div flag,
    // genetic code id, inherited GC flag, mito code id, inherited MGC flag,
    // GenBank hidden flag, hidden subtree root flag, comments.
    const bool root = taxon.taxid == 1;
    const bool top = taxon.rank == "superkingdom";
    const std::string flags = root  ? "8\t|\t0\t|\t1\t|\t0\t|\t0\t|\t0\t|\t0\t|\t0"
                              : top ? "0\t|\t0\t|\t11\t|\t0\t|\t0\t|\t0\t|\t0\t|\t0"
                                    : "0\t|\t1\t|\t11\t|\t1\t|\t0\t|\t1\t|\t0\t|\t0";
    nodes.write(std::to_string(taxon.taxid) + "\t|\t" + std::to_string(taxon.parent) + "\t|\t" +
                taxon.rank + "\t|\t\t|\t" + flags + "\t|\t\t|\n");
    names.write(std::to_string(taxon.taxid) + "\t|\t" + taxon.name +
                "\t|\t\t|\tscientific name\t|\n");
  }
  nodes.close();
  names.close();
}

// ---------------------------------------------------------------------------------------
// Reads.

struct ReadPair {
  std::string seq1, qual1, seq2, qual2;
  std::uint64_t taxid = 0, species_taxid = 0, genus_taxid = 0;
  std::string target;
};

class ReadSimulator {
 public:
  explicit ReadSimulator(const Options& options) : options_(options) {
    // Errors rise along the read (0.5x to 1.5x the mean rate), as on Illumina machines;
    // the nominal quality follows the rate.
    const std::size_t length = options.read_length;
    for (std::size_t i = 0; i < length; ++i) {
      const double position = length > 1 ? static_cast<double>(i) / (length - 1) : 0.5;
      const double rate = options.error_rate * (0.5 + position);
      error_rate_.push_back(rate);
      const double phred = rate > 0 ? -10.0 * std::log10(rate) : 41.0;
      nominal_quality_.push_back(static_cast<int>(std::clamp(std::round(phred), 2.0, 41.0)));
    }
  }

  // A pair from a fragment of `record` (which must be at least read_length long).
  ReadPair from_fragment_of(std::string_view record, Rng& rng) const {
    const std::size_t length = options_.read_length;
    const double drawn = std::round(options_.insert_mean + options_.insert_sd * rng.normal());
    const auto fragment_length = static_cast<std::size_t>(std::clamp(
        drawn, static_cast<double>(length), static_cast<double>(record.size())));
    const std::size_t start = rng.below(record.size() - fragment_length + 1);
    std::string fragment(record.substr(start, fragment_length));
    if (rng.next() & 1) fragment = reverse_complement(fragment);
    ReadPair pair;
    pair.seq1 = fragment.substr(0, length);
    pair.seq2 = reverse_complement(std::string_view(fragment).substr(fragment_length - length));
    sequence_read(pair.seq1, pair.qual1, rng);
    sequence_read(pair.seq2, pair.qual2, rng);
    return pair;
  }

  ReadPair random_pair(Rng& rng) const {
    std::string fragment;
    const double drawn = std::round(options_.insert_mean + options_.insert_sd * rng.normal());
    const auto fragment_length = static_cast<std::size_t>(
        std::max(drawn, static_cast<double>(options_.read_length)));
    append_random(fragment, fragment_length, rng, options_.gc);
    ReadPair pair = from_fragment_of(fragment, rng);
    pair.target = "random";
    return pair;
  }

 private:
  void sequence_read(std::string& bases, std::string& qualities, Rng& rng) const {
    qualities.resize(bases.size());
    for (std::size_t i = 0; i < bases.size(); ++i) {
      int quality = nominal_quality_[i] + static_cast<int>(rng.below(5)) - 2;
      if (bases[i] == 'N') {
        quality = 2;
      } else if (rng.uniform() < error_rate_[i]) {
        bases[i] = substitute(bases[i], rng);
        quality = 2 + static_cast<int>(rng.below(14));  // errors mostly carry low qualities
      }
      qualities[i] = static_cast<char>('!' + std::clamp(quality, 2, 41));
    }
  }

  const Options& options_;
  std::vector<double> error_rate_;
  std::vector<int> nominal_quality_;
};

class ReadWriter {
 public:
  ReadWriter(const fs::path& dir, int gzip_level)
      : r1_(dir / (gzip_level > 0 ? "reads_R1.fq.gz" : "reads_R1.fq"), gzip_level),
        r2_(dir / (gzip_level > 0 ? "reads_R2.fq.gz" : "reads_R2.fq"), gzip_level),
        truth_(dir / "truth.tsv", 0) {
    truth_.write("read_id\ttaxid\tspecies_taxid\tgenus_taxid\ttarget\n");
  }

  void write(const ReadPair& pair) {
    const std::string name = "r" + std::to_string(++count_);
    write_fastq(r1_, name + "/1", pair.seq1, pair.qual1);
    write_fastq(r2_, name + "/2", pair.seq2, pair.qual2);
    truth_.write(name + '\t' + std::to_string(pair.taxid) + '\t' +
                 std::to_string(pair.species_taxid) + '\t' + std::to_string(pair.genus_taxid) +
                 '\t' + pair.target + '\n');
  }

  void close() {
    r1_.close();
    r2_.close();
    truth_.close();
  }

  std::uint64_t count() const { return count_; }

 private:
  static void write_fastq(OutputFile& out, const std::string& name, const std::string& bases,
                          const std::string& qualities) {
    out.put('@');
    out.write(name);
    out.put('\n');
    out.write(bases);
    out.write("\n+\n");
    out.write(qualities);
    out.put('\n');
  }

  OutputFile r1_, r2_, truth_;
  std::uint64_t count_ = 0;
};

// ---------------------------------------------------------------------------------------
// Genomes.

void write_fasta_record(OutputFile& out, const std::string& header, std::string_view sequence) {
  out.put('>');
  out.write(header);
  out.put('\n');
  for (std::size_t pos = 0; pos < sequence.size(); pos += 80) {
    out.write(sequence.substr(pos, 80));
    out.put('\n');
  }
}

// Cuts the strain's sequence into its records (chromosome, optional plasmid at the end).
std::vector<std::string_view> split_records(const GenomePlan& genome, std::string_view sequence) {
  if (genome.records.size() == 1) return {sequence};
  auto plasmid = static_cast<std::size_t>(std::round(genome.plasmid_share * sequence.size()));
  plasmid = std::clamp<std::size_t>(plasmid, 1, sequence.size() - 1);
  return {sequence.substr(0, sequence.size() - plasmid), sequence.substr(sequence.size() - plasmid)};
}

class Generator {
 public:
  explicit Generator(const Options& options)
      : options_(options), plan_(make_plan(options)), simulator_(options) {}

  void run() {
    const fs::path out = options_.output_dir;
    fs::create_directories(out / "genomes");
    refuse_foreign_genome_files(out / "genomes");
    write_taxonomy(plan_, out / "taxonomy");
    check_records_fit_reads();

    OutputFile seqid_map(out / "seqid2taxid.map", 0);
    ReadWriter reads(out, gzip_level());
    std::vector<ReadPair> pending;  // all pairs, when they are shuffled in memory

    // Genera are made by --threads workers, a window of them at a time, and written in genus
    // order: every genus draws from its own streams, so the bytes do not depend on the count.
    const std::size_t genera = plan_.genera.size();
    const std::size_t threads = std::max<std::size_t>(1, options_.threads);
    std::uint64_t bases_written = 0;
    for (std::size_t first = 0; first < genera; first += threads) {
      const std::size_t last = std::min(genera, first + threads);
      std::vector<GenusOutput> made(last - first);
      metawarp::host::parallel_for(last - first, unsigned(threads),
                                   [&](std::size_t i) { made[i] = make_genus(first + i, out); });
      for (std::size_t g = first; g < last; ++g) {
        GenusOutput& genus = made[g - first];
        seqid_map.write(genus.seqid_lines);
        bases_written += genus.bases;
        for (auto& pair : genus.pairs) {
          if (options_.stream) {
            reads.write(pair);
          } else {
            pending.push_back(std::move(pair));
          }
        }
        const std::size_t report_every = std::max<std::size_t>(1, genera / 100);
        if (!options_.quiet && options_.stream && ((g + 1) % report_every == 0 || g + 1 == genera)) {
          std::fprintf(stderr, "generate_synthetic: genus %zu/%zu, %.3f Gbp, %llu read pairs\n",
                       g + 1, genera, bases_written * 1e-9,
                       static_cast<unsigned long long>(reads.count()));
        }
      }
    }
    add_random_pairs(reads, pending);
    if (!options_.stream) shuffle_and_write(pending, reads);
    seqid_map.close();
    reads.close();
    write_manifest(out / "genomes.tsv");
    if (!options_.quiet) {
      std::fprintf(stderr,
                   "generate_synthetic: %zu genomes (%zu taxa), %llu bases, %llu read pairs "
                   "(%llu random) in %s\n",
                   plan_.genomes.size(), plan_.taxa.size(),
                   static_cast<unsigned long long>(bases_written),
                   static_cast<unsigned long long>(reads.count()),
                   static_cast<unsigned long long>(plan_.random_pairs), out.c_str());
    }
  }

 private:
  int gzip_level() const { return options_.gzip ? options_.gzip_level : 0; }

  // A genome file left from an earlier, larger run would be read as part of this set while
  // missing from its seqid map and truth; overwriting this run's own file names is fine.
  void refuse_foreign_genome_files(const fs::path& dir) const {
    std::vector<std::string> expected;
    for (const auto& genome : plan_.genomes) {
      expected.push_back(genome.file_stem + (options_.gzip ? ".fna.gz" : ".fna"));
    }
    std::sort(expected.begin(), expected.end());
    for (const auto& entry : fs::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      if (!std::binary_search(expected.begin(), expected.end(), name)) {
        throw std::runtime_error(entry.path().string() +
                                 ": not a file of this set; use an empty output directory");
      }
    }
  }

  void check_records_fit_reads() const {
    // The smallest record must hold a read; mutations change lengths a little, so keep a
    // margin instead of failing later in the middle of a large run.
    for (const auto& genome : plan_.genomes) {
      const double length = static_cast<double>(plan_.genera[genome.genus].nominal_length);
      const double smallest =
          genome.records.size() == 1 ? length : length * std::min(genome.plasmid_share, 0.5);
      if (genome.read_pairs > 0 && smallest < 2.0 * options_.read_length) {
        throw std::runtime_error("genome '" + genome.name + "': records of ~" +
                                 std::to_string(static_cast<long long>(smallest)) +
                                 " bases are too short for reads of " +
                                 std::to_string(options_.read_length) +
                                 " bases (raise --genome-length or lower --plasmid-fraction)");
      }
    }
  }

  // What one genus adds to the set-wide files, in the order it is to be written.
  struct GenusOutput {
    std::string seqid_lines;
    std::vector<ReadPair> pairs;
    std::uint64_t bases = 0;
  };

  // Ancestor -> species -> strains of genus g: writes the strains' FASTA files and returns
  // their seqid-map lines and reads. Touches only genus g's genomes in plan_, so genera may be
  // made at the same time.
  GenusOutput make_genus(std::size_t g, const fs::path& out) {
    const auto& genus = plan_.genera[g];
    GenusOutput made;
    Rng ancestor_rng(derive_seed(options_.seed, Stream::ancestor, g));
    std::string ancestor;
    ancestor.reserve(genus.nominal_length);
    append_random(ancestor, genus.nominal_length, ancestor_rng, options_.gc);
    std::size_t genome_index = g * options_.species_per_genus * options_.strains_per_species;
    for (std::size_t s = 0; s < options_.species_per_genus; ++s) {
      const std::size_t species = g * options_.species_per_genus + s;
      Rng species_rng(derive_seed(options_.seed, Stream::species, species));
      const std::string species_sequence =
          mutate(ancestor, plan_.species_divergence[species], options_, species_rng);
      for (std::size_t t = 0; t < options_.strains_per_species; ++t, ++genome_index) {
        auto& genome = plan_.genomes[genome_index];
        Rng strain_rng(derive_seed(options_.seed, Stream::strain, genome_index));
        const double divergence =
            options_.strain_divergence_min +
            (options_.strain_divergence_max - options_.strain_divergence_min) *
                strain_rng.uniform();
        std::string strain = mutate(species_sequence, divergence, options_, strain_rng);
        add_n_runs(strain, options_, strain_rng);
        genome.length = strain.size();
        made.bases += strain.size();
        const auto records = split_records(genome, strain);
        write_genome(genome, records, out, made.seqid_lines);
        simulate_reads(genome, records, made.pairs);
      }
    }
    return made;
  }

  void write_genome(const GenomePlan& genome, const std::vector<std::string_view>& records,
                    const fs::path& out, std::string& seqid_lines) const {
    const fs::path path =
        out / "genomes" / (genome.file_stem + (options_.gzip ? ".fna.gz" : ".fna"));
    OutputFile fasta(path, gzip_level());
    for (std::size_t r = 0; r < records.size(); ++r) {
      const auto& record = genome.records[r];
      std::string header = record.seqid;
      if (options_.taxid_in_headers) header += "|kraken:taxid|" + std::to_string(genome.strain_taxid);
      header += ' ' + genome.name + ' ' + record.role;
      write_fasta_record(fasta, header, records[r]);
      seqid_lines += record.seqid + '\t' + std::to_string(genome.strain_taxid) + '\n';
    }
    fasta.close();
  }

  void simulate_reads(const GenomePlan& genome, const std::vector<std::string_view>& records,
                      std::vector<ReadPair>& pairs) const {
    Rng rng(derive_seed(options_.seed, Stream::reads, genome.index));
    // Records shorter than a read cannot yield one; others are chosen by length.
    std::uint64_t usable = 0;
    for (const auto record : records) {
      if (record.size() >= options_.read_length) usable += record.size();
    }
    if (usable == 0 && genome.read_pairs > 0) {
      throw std::runtime_error("genome '" + genome.name + "': no record is as long as a read");
    }
    for (std::uint64_t i = 0; i < genome.read_pairs; ++i) {
      std::uint64_t position = rng.below(usable);
      std::size_t r = 0;
      for (;; ++r) {
        if (records[r].size() < options_.read_length) continue;
        if (position < records[r].size()) break;
        position -= records[r].size();
      }
      ReadPair pair = simulator_.from_fragment_of(records[r], rng);
      pair.taxid = genome.strain_taxid;
      pair.species_taxid = genome.species_taxid;
      pair.genus_taxid = genome.genus_taxid;
      pair.target = genome.records[r].seqid;
      pairs.push_back(std::move(pair));
    }
  }

  void add_random_pairs(ReadWriter& reads, std::vector<ReadPair>& pending) const {
    Rng rng(derive_seed(options_.seed, Stream::random_reads, 0));
    for (std::uint64_t i = 0; i < plan_.random_pairs; ++i) {
      ReadPair pair = simulator_.random_pair(rng);
      if (options_.stream) {
        reads.write(pair);
      } else {
        pending.push_back(std::move(pair));
      }
    }
  }

  void shuffle_and_write(std::vector<ReadPair>& pending, ReadWriter& reads) const {
    Rng rng(derive_seed(options_.seed, Stream::shuffle, 0));
    for (std::size_t i = pending.size(); i > 1; --i) {
      std::swap(pending[i - 1], pending[rng.below(i)]);
    }
    for (const auto& pair : pending) reads.write(pair);
  }

  void write_manifest(const fs::path& path) const {
    OutputFile manifest(path, 0);
    manifest.write(
        "genome\tstrain_taxid\tspecies_taxid\tgenus_taxid\tname\trecords\tlength\tabundance\t"
        "read_pairs\n");
    for (const auto& genome : plan_.genomes) {
      std::string records;
      for (const auto& record : genome.records) {
        records += (records.empty() ? "" : ",") + record.seqid;
      }
      char abundance[32];
      std::snprintf(abundance, sizeof abundance, "%.6f", genome.abundance);
      manifest.write(genome.file_stem + '\t' + std::to_string(genome.strain_taxid) + '\t' +
                     std::to_string(genome.species_taxid) + '\t' +
                     std::to_string(genome.genus_taxid) + '\t' + genome.name + '\t' + records +
                     '\t' + std::to_string(genome.length) + '\t' + abundance + '\t' +
                     std::to_string(genome.read_pairs) + '\n');
    }
    manifest.close();
  }

  const Options& options_;
  Plan plan_;
  ReadSimulator simulator_;
};

void validate(Options& options) {
  auto require = [](bool ok, const std::string& message) {
    if (!ok) throw std::runtime_error(message);
  };
  require(options.genera > 0 && options.species_per_genus > 0 && options.strains_per_species > 0,
          "--genera, --species-per-genus and --strains-per-species must be positive");
  require(options.genome_length >= 1, "--genome-length must be positive");
  require(options.genome_length_jitter >= 0 && options.genome_length_jitter < 1,
          "--genome-length-jitter must be in [0, 1)");
  require(options.gc >= 0 && options.gc <= 1, "--gc must be in [0, 1]");
  require(options.species_divergence_min >= 0 &&
              options.species_divergence_min <= options.species_divergence_max &&
              options.species_divergence_max < 1,
          "species divergence: need 0 <= min <= max < 1");
  require(options.strain_divergence_min >= 0 &&
              options.strain_divergence_min <= options.strain_divergence_max &&
              options.strain_divergence_max < 1,
          "strain divergence: need 0 <= min <= max < 1");
  require(options.indel_fraction >= 0 && options.indel_fraction <= 1,
          "--indel-fraction must be in [0, 1]");
  require(options.max_indel_length >= 1, "--max-indel-length must be at least 1");
  require(options.plasmid_fraction >= 0 && options.plasmid_fraction <= 1,
          "--plasmid-fraction must be in [0, 1]");
  require(options.n_fraction >= 0 && options.n_fraction < 0.5, "--n-fraction must be in [0, 0.5)");
  require(options.read_pairs >= 0, "--read-pairs must not be negative");
  require(options.read_length >= 1, "--read-length must be positive");
  require(options.insert_sd >= 0, "--insert-sd must not be negative");
  require(options.error_rate >= 0 && options.error_rate < 0.5, "--error-rate must be in [0, 0.5)");
  require(options.random_fraction >= 0 && options.random_fraction <= 1,
          "--random-fraction must be in [0, 1]");
  require(options.abundance_sigma >= 0, "--abundance-sigma must not be negative");
  require(options.gzip_level >= 1 && options.gzip_level <= 9, "--gzip-level must be in 1..9");
  require(options.taxid_base > 1, "--taxid-base must be above 1 (taxid 1 is the root)");
  if (options.total_bases > 0) {
    // Enough genera to reach the requested size; everything else as given.
    const double per_genus = options.genome_length *
                             static_cast<double>(options.species_per_genus) *
                             static_cast<double>(options.strains_per_species);
    options.genera = static_cast<std::size_t>(std::max(1.0, std::ceil(options.total_bases / per_genus)));
    options.stream = true;
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  CLI::App app{"Writes a synthetic reference set (genomes related along a taxonomy tree, "
               "NCBI taxonomy dump, seqid map) and simulated paired reads with per-read truth."};
  app.add_option("-o,--output-dir", options.output_dir, "Output directory")->required();
  app.add_option("--seed", options.seed, "Random seed (same seed + options = same bytes)")
      ->capture_default_str();
  app.add_option("--genera", options.genera, "Number of genera")->capture_default_str();
  app.add_option("--species-per-genus", options.species_per_genus)->capture_default_str();
  app.add_option("--strains-per-species", options.strains_per_species)->capture_default_str();
  app.add_option("--genome-length", options.genome_length, "Mean genome length in bases")
      ->capture_default_str();
  app.add_option("--genome-length-jitter", options.genome_length_jitter,
                 "Genus lengths vary by up to +-this fraction")
      ->capture_default_str();
  app.add_option("--gc", options.gc, "GC content of random sequence")->capture_default_str();
  app.add_option("--species-divergence-min", options.species_divergence_min,
                 "Mutation events per base, genus ancestor -> species (min)")
      ->capture_default_str();
  app.add_option("--species-divergence-max", options.species_divergence_max)
      ->capture_default_str();
  app.add_option("--strain-divergence-min", options.strain_divergence_min,
                 "Mutation events per base, species -> strain (min)")
      ->capture_default_str();
  app.add_option("--strain-divergence-max", options.strain_divergence_max)->capture_default_str();
  app.add_option("--indel-fraction", options.indel_fraction,
                 "Fraction of mutation events that are indels (rest: substitutions)")
      ->capture_default_str();
  app.add_option("--max-indel-length", options.max_indel_length)->capture_default_str();
  app.add_option("--plasmid-fraction", options.plasmid_fraction,
                 "Fraction of species whose genomes have a second record (plasmid)")
      ->capture_default_str();
  app.add_option("--n-fraction", options.n_fraction, "Fraction of bases in runs of N")
      ->capture_default_str();
  app.add_option("--n-run-length", options.n_run_length, "Mean length of an N run")
      ->capture_default_str();
  app.add_option("--read-pairs", options.read_pairs, "Read pairs in total (e.g. 20e6)")
      ->capture_default_str();
  app.add_option("--read-length", options.read_length)->capture_default_str();
  app.add_option("--insert-mean", options.insert_mean, "Mean fragment length")
      ->capture_default_str();
  app.add_option("--insert-sd", options.insert_sd, "Standard deviation of the fragment length")
      ->capture_default_str();
  app.add_option("--error-rate", options.error_rate, "Mean substitution error rate per base")
      ->capture_default_str();
  app.add_option("--random-fraction", options.random_fraction,
                 "Fraction of pairs from random sequence (truth taxid 0)")
      ->capture_default_str();
  app.add_option("--abundance-sigma", options.abundance_sigma,
                 "Log-normal sigma of genome abundances (0: even coverage)")
      ->capture_default_str();
  app.add_option("--total-bases", options.total_bases,
                 "Benchmark mode: enough genera for about this many genome bases (e.g. 10e9); "
                 "implies --stream");
  app.add_option("--taxid-base", options.taxid_base, "First taxid below the root")
      ->capture_default_str();
  app.add_flag("--gzip", options.gzip, "Write genomes and reads gzip-compressed");
  app.add_option("--gzip-level", options.gzip_level, "zlib level for --gzip (1-9)")
      ->capture_default_str();
  app.add_flag("--taxid-in-headers", options.taxid_in_headers,
               "Add |kraken:taxid|N to FASTA record ids");
  app.add_flag("--stream", options.stream,
               "Write reads right after their genome (grouped by genome) instead of shuffling "
               "them in memory");
  app.add_option("-t,--threads", options.threads,
                 "Genera made at the same time (the output does not depend on it)")
      ->capture_default_str();
  app.add_flag("-q,--quiet", options.quiet, "No summary on stderr");
  CLI11_PARSE(app, argc, argv);

  try {
    validate(options);
    if (!options.stream && options.read_pairs > 5e6) {
      std::fprintf(stderr,
                   "generate_synthetic: note: all %.0f pairs are held in memory to shuffle "
                   "them; --stream writes them grouped by genome without that\n",
                   options.read_pairs);
    }
    Generator(options).run();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "generate_synthetic: error: %s\n", error.what());
    return 1;
  }
  return 0;
}
