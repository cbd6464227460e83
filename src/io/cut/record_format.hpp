#pragma once
// What an input's first non-blank byte says it holds ('>': FASTA, '@':
// FASTQ), known to the cutter, which finds record boundaries by it, and to
// the parser, which reads the records.
#include <cstdint>

namespace metawarp::io {

enum class Format : std::uint8_t { unknown, fasta, fastq };

}  // namespace metawarp::io
