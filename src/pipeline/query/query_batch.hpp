#pragma once
// The parts of a query run that do not depend on how reads are classified
// (query.cpp: batch by batch against the whole database; partitioned_query.cpp:
// many batches at once, the database part by part): a batch of reads, its
// parse, its formatting, and the writer of the outputs in input order.
#include <array>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "db/database.hpp"
#include "io/parse/read_batch.hpp"
#include "io/parse/sequence_reader.hpp"
#include "metawarp/classify/assign.hpp"
#include "pipeline/query/query.hpp"
#include "pipeline/query/query_output.hpp"
#include "pipeline/query/read_outputs.hpp"
#include "report/minimizer_data.hpp"
#include "report/abundance_em.hpp"
#include "report/per_read.hpp"
#include "report/taxon_counts.hpp"

namespace metawarp::pipeline {

// The text of a batch's mates 1 (or single reads) stops at the first record
// boundary past this many bytes, whatever the batch size, so memory stays
// bounded with long reads: a batch holds about this many bases or fewer
// (FASTQ text is twice its bases; mates 2 are about as long as mates 1).
inline constexpr std::size_t max_batch_bytes = std::size_t(64) << 20;

// The most text of mates 1 (or single reads) in one batch: max_batch_bytes,
// less for a plain reads file (of `file_size` bytes; 0: not a regular file)
// small enough to give each of `threads` workers only a few batches. Batch
// boundaries do not change any result.
std::size_t batch_byte_limit(const QueryOptions& options, std::uintmax_t file_size,
                             bool compressed, unsigned threads);

// The reads of a query (throws std::invalid_argument for a wrong file count,
// io::InputError when a file cannot be opened).
io::ReadBlockCutter open_reads(const QueryOptions& options);

// A batch's formatted lines and calls, or its bad input: written out, in
// batch order, instead of its reads.
struct BatchOutput {
  std::string tsv;
  std::string kraken;
  std::vector<taxonomy::taxid_t> calls;  // taxid per read, for the report
  // --classified-out / --unclassified-out: the records as read, mates 1 and 2.
  std::array<std::string, 2> classified;
  std::array<std::string, 2> unclassified;
  // --report-minimizer-data: the batch's features found, with their taxa.
  std::vector<std::pair<sketch::feature_t, taxonomy::taxid_t>> found;
  // With --abundance-em: per read, how many taxa it appends to candidate_taxa
  // (report::CandidateSets).
  std::vector<std::uint32_t> candidate_taxa_counts;
  std::vector<taxonomy::taxid_t> candidate_taxa;
  std::uint64_t bases = 0;
  std::exception_ptr error;
};

// A batch: raw text cut by the source step, parsed and classified by a
// worker, written by the sink. The pipelines reuse their batches, so their
// buffers keep their capacity and refilling one allocates (nearly) nothing.
struct Batch {
  io::ReadBlocks blocks;
  bool empty = false;  // nothing to classify: mates 2 ended with mates 1
  std::uint64_t first_file_bytes = 0;  // taken from the first file once it was cut
  BatchOutput out;
};

// A batch parsed: its records as views into the batch's blocks (entries
// past the batch's count are spare; valid while the batch is), views of
// their sequences and a result per read. A worker keeps one from batch to
// batch, so after the first batches parsing allocates nothing.
struct ParsedBatch {
  io::ReadViewBatch records;  // mates 2 unused for single-end reads
  std::vector<ReadView> reads;
  // Sized as reads; every engine assigns each result whole, so a result
  // left from an earlier batch is never read.
  std::vector<ReadResult> results;
  // With --minimum-base-quality: the FASTQ sequences with their low-quality
  // bases masked, which `reads` then view.
  std::string masked;
};

// Clears batch.out, then parses the batch into `parsed`, its reads masked by
// options.minimum_base_quality. False when there is nothing to classify: the
// batch is empty, or its bad input is now batch.out.error (the sink reports
// it when it reaches the batch, so the error reported is the first in input
// order whatever the thread count).
bool parse_batch(const QueryOptions& options, io::ReadLayout layout, Batch& batch,
                 ParsedBatch& parsed);

// A streamed engine's group decided at once (the partitioned engine's kept
// hits, the MPI engine's GPU ranks): its batches parsed into parsed[0,
// count) on `threads`, `decide(reads, results)` given every batch's reads
// and results (empty for a batch with nothing to classify), then each batch
// formatted by `writer`. Returns the seconds of the parse, and of the
// decisions with the formatting.
struct GroupSeconds {
  double parse = 0, decide = 0;
};
using DecideGroup = std::function<void(std::span<const std::span<const ReadView>> reads,
                                       std::span<const std::span<ReadResult>> results)>;
GroupSeconds decide_group(BatchGroup& group, std::vector<ParsedBatch>& parsed,
                          const GroupContext& context, const DecideGroup& decide);

// Its two ends apart, for an engine that decides a group on another step
// than the one that parses it (the MPI engine's look-ahead): the batches
// parsed into parsed[0, count), `out` their reads and results (empty for a
// batch with nothing to classify); then, once decided, formatted.
struct GroupReads {
  std::vector<std::span<const ReadView>> reads;
  std::vector<std::span<ReadResult>> results;
};
void parse_group(BatchGroup& group, std::vector<ParsedBatch>& parsed,
                 const GroupContext& context, GroupReads& out);
void format_group(BatchGroup& group, const std::vector<ParsedBatch>& parsed,
                  const GroupContext& context);

// The outputs of one query: opened (as temporaries) when made, so that a
// failed query removes older files at every output path; written batch by
// batch in input order; the report and abundances from the calls at the end.
class QueryWriter {
 public:
  QueryWriter(const db::Database& db, const QueryOptions& options, QueryCounters& counters);

  // The batch's lines and calls from its results (any thread, at once).
  void format(Batch& batch, const ParsedBatch& parsed, bool paired) const;
  // The sink, in input order: rethrows the batch's error, writes its lines.
  void write(const Batch& batch, QuerySummary& summary);
  // The report and abundances, then every output committed.
  void finish(QuerySummary& summary);

 private:
  void split_reads_by_call(Batch& batch, bool paired) const;
  void append_candidate_taxa(const ReadResult& result, BatchOutput& out) const;
  // The estimate of the abundance table and --bracken-output at the
  // abundance rank: from the profile for this sample, else the candidate
  // sets' EM; nullopt where neither output wants one.
  std::optional<report::EmEstimate> abundance_estimate(const QuerySummary& summary) const;

  const db::Database& db_;
  const QueryOptions& options_;
  report::ReadFormatter formatter_;
  OutputFile tsv_;
  OutputFile kraken_;
  OutputFile report_;
  OutputFile abundance_;
  OutputFile bracken_;
  ReadOutputs reads_;  // --classified-out, --unclassified-out
  report::TaxonCounts counts_;
  report::FeatureTally features_seen_;  // --report-minimizer-data
  // --abundance-em: the targets' lineages and the reads' candidate sets.
  std::vector<classify::TargetLineage> lineages_;
  report::CandidateSets candidate_sets_;
  QueryCounters& counters_;
};

// run_query's frame around `run`: the batch size and output paths checked,
// and every output (new or old) removed unless `run` returns.
QuerySummary run_with_safe_outputs(const QueryOptions& options,
                                   const std::function<QuerySummary()>& run);

}  // namespace metawarp::pipeline
