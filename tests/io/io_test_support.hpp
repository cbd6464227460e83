#pragma once
// Temporary files and generated truth for the io tests. The expected records
// are built first and written out in the format under test, so parsed content
// is compared with what was generated, not with the parser's own output.
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/parse/sequence_reader.hpp"
#include "scratch_dir.hpp"

namespace metawarp::io::test {

namespace fs = std::filesystem;

using TempDir = metawarp::test::ScratchDir;

inline void write_file(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

// Each part becomes its own gzip member, as bgzip or `cat a.gz b.gz` produce.
inline void write_gzip(const std::string& path, const std::vector<std::string>& members) {
  std::string bytes;
  for (std::size_t i = 0; i < members.size(); ++i) {
    const std::string part = path + ".member" + std::to_string(i);
    gzFile file = gzopen(part.c_str(), "wb");
    if (file == nullptr) throw std::runtime_error("gzopen failed");
    if (!members[i].empty()) gzwrite(file, members[i].data(), static_cast<unsigned>(members[i].size()));
    gzclose(file);
    std::ifstream in(part, std::ios::binary);
    bytes.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    fs::remove(part);
  }
  write_file(path, bytes);
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// "prefix" + number. Built with append: GCC 12 reports a false -Wrestrict for
// "literal" + std::to_string(...) once inlined.
inline std::string numbered(std::string prefix, std::size_t number) {
  return prefix.append(std::to_string(number));
}

struct Truth {
  std::string header;
  std::string sequence;
  std::string quality;
};

inline std::string random_bases(std::mt19937_64& random, std::size_t length,
                                std::string_view alphabet = "ACGT") {
  std::string bases(length, 'A');
  for (char& base : bases) base = alphabet[random() % alphabet.size()];
  return bases;
}

inline std::string random_quality(std::mt19937_64& random, std::size_t length) {
  std::string quality(length, 'I');
  for (char& q : quality) q = static_cast<char>('!' + random() % 42);
  return quality;
}

// FASTA truth: "seq0 description\twith tab", ... with 0 to max_length bases
// of `alphabet` (each record's length drawn before its bases).
inline std::vector<Truth> random_fasta_truth(std::mt19937_64& random, std::size_t count,
                                             std::size_t max_length,
                                             std::string_view alphabet = "ACGT") {
  std::vector<Truth> records;
  for (std::size_t i = 0; i < count; ++i) {
    records.push_back({numbered("seq", i) + " description\twith tab",
                       random_bases(random, random() % (max_length + 1), alphabet), ""});
  }
  return records;
}

// FASTQ truth: "read0/1 lane=3", ... with 1 to 300 bases (ACGTN) and qualities.
inline std::vector<Truth> random_fastq_truth(std::mt19937_64& random, std::size_t count) {
  std::vector<Truth> records;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t length = 1 + random() % 300;
    records.push_back({numbered("read", i) + "/1 lane=3", random_bases(random, length, "ACGTN"),
                       random_quality(random, length)});
  }
  return records;
}

// FASTA truth like a genome assembly: "genome0", ... of `length` bases each,
// N and soft-masked (lower-case) bases among them.
inline std::vector<Truth> genome_like(std::mt19937_64& random, std::size_t count,
                                      std::size_t length) {
  std::vector<Truth> records;
  for (std::size_t i = 0; i < count; ++i) {
    records.push_back({numbered("genome", i), random_bases(random, length, "ACGTNacgt"), ""});
  }
  return records;
}

// FASTA with sequence lines of `width` characters (0: one line per record).
inline std::string to_fasta(const std::vector<Truth>& records, std::size_t width,
                            const std::string& line_end = "\n") {
  std::string text;
  for (const Truth& record : records) {
    text += ">" + record.header + line_end;
    const std::size_t step = width == 0 ? std::max<std::size_t>(record.sequence.size(), 1) : width;
    for (std::size_t i = 0; i < record.sequence.size(); i += step) {
      text += record.sequence.substr(i, step) + line_end;
    }
  }
  return text;
}

inline std::string to_fastq(const std::vector<Truth>& records, bool repeat_header = false,
                            const std::string& line_end = "\n") {
  std::string text;
  for (const Truth& record : records) {
    text += "@" + record.header + line_end + record.sequence + line_end + "+" +
            (repeat_header ? record.header : "") + line_end + record.quality + line_end;
  }
  return text;
}

inline std::vector<SequenceRecord> read_all(const std::string& path) {
  SequenceReader reader(path);
  std::vector<SequenceRecord> records;
  SequenceRecord record;
  while (reader.next(record)) records.push_back(record);
  return records;
}

// Compares parsed records with the truth, field by field, numbering included.
inline bool same_records(const std::vector<SequenceRecord>& parsed, const std::vector<Truth>& truth) {
  if (parsed.size() != truth.size()) return false;
  for (std::size_t i = 0; i < parsed.size(); ++i) {
    if (parsed[i].header != truth[i].header || parsed[i].sequence != truth[i].sequence ||
        parsed[i].quality != truth[i].quality || parsed[i].number != i + 1) {
      return false;
    }
  }
  return true;
}

}  // namespace metawarp::io::test
