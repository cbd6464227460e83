#include "pipeline/query_batch.hpp"

#include <span>
#include <stdexcept>

#include "output/output_check.hpp"
#include "output/output_path.hpp"
#include "output/remove_on_failure.hpp"
#include "report/abundance.hpp"
#include "report/kraken_report.hpp"

namespace metawarp::pipeline {
namespace {

// The fragment's id: mate 1's id without a trailing "/1".
std::string_view read_id(const io::SequenceRecord& mate1, bool paired) {
  std::string_view id = mate1.id();
  if (paired && id.size() > 2 && id[id.size() - 2] == '/' && id.back() == '1')
    id.remove_suffix(2);
  return id;
}

}  // namespace

io::ReadBlockCutter open_reads(const QueryOptions& o) {
  if (o.reads.empty() || o.reads.size() > 2)
    throw std::invalid_argument("query needs one reads file (or two for pairs)");
  if (o.reads.size() == 2 && o.interleaved)
    throw std::invalid_argument("--interleaved takes one reads file, not two");
  return io::ReadBlockCutter(o.reads, o.interleaved);
}

bool parse_batch(io::ReadLayout layout, Batch& batch, ParsedBatch& parsed) {
  BatchOutput& out = batch.out;
  out.tsv.clear();
  out.kraken.clear();
  out.calls.clear();
  out.candidate_taxa_counts.clear();
  out.candidate_taxa.clear();
  out.bases = 0;
  out.error = nullptr;
  parsed.reads.clear();
  parsed.results.clear();
  if (batch.empty) return false;
  const io::ParsedReads result =
      io::parse_read_blocks(layout, batch.blocks, parsed.mates1, parsed.mates2);
  if (result.error) {
    out.error = result.error;
    return false;
  }
  const bool paired = layout != io::ReadLayout::single;
  for (std::size_t i = 0; i < result.count; ++i)
    parsed.reads.push_back(ReadView{parsed.mates1[i].sequence,
                                    paired ? std::string_view(parsed.mates2[i].sequence)
                                           : std::string_view()});
  parsed.results.resize(result.count);
  return true;
}

QueryWriter::QueryWriter(const db::Database& db, const QueryOptions& o, QueryCounters& counters)
    : db_(db),
      options_(o),
      formatter_(db, o.top_hits),
      tsv_(o.output),
      kraken_(o.kraken_output),
      report_(o.report),
      abundance_(o.abundance),
      counters_(counters) {
  tsv_.write(formatter_.tsv_header());
  if (o.abundance_em && abundance_.enabled()) lineages_ = target_lineages(db);
}

// The taxa at the abundance rank a read may belong to: the ancestor there of
// its call, or, for a call above the rank (or on a lineage without it), the
// taxa there of the candidates that took part in the call.
void QueryWriter::append_candidate_taxa(const ReadResult& result, BatchOutput& out) const {
  const std::size_t before = out.candidate_taxa.size();
  const taxonomy::taxid_t called = result.assignment.taxid;
  if (called != taxonomy::no_taxon) {
    const taxonomy::taxid_t at_rank =
        report::taxon_at_rank(db_.taxonomy, called, options_.abundance_rank);
    if (at_rank != taxonomy::no_taxon) {
      out.candidate_taxa.push_back(at_rank);
    } else {
      const std::uint32_t level = std::uint32_t(options_.abundance_rank);
      for (std::uint32_t c = 0; c < result.assignment.candidates_used; ++c) {
        const taxonomy::taxid_t taxon = lineages_[result.top[c].target].ids[level];
        if (taxon != taxonomy::no_taxon) out.candidate_taxa.push_back(taxon);
      }
    }
  }
  out.candidate_taxa_counts.push_back(std::uint32_t(out.candidate_taxa.size() - before));
}

void QueryWriter::format(Batch& batch, const ParsedBatch& parsed, bool paired) const {
  BatchOutput& out = batch.out;
  for (std::size_t i = 0; i < parsed.reads.size(); ++i) {
    const ReadResult& result = parsed.results[i];
    report::ReadCall call;
    call.id = read_id(parsed.mates1[i], paired);
    call.length1 = parsed.reads[i].mate1.size();
    call.length2 = parsed.reads[i].mate2.size();
    call.paired = paired;
    call.taxid = result.assignment.taxid;
    call.candidates = result.top;
    call.candidate_count = result.candidate_count;
    if (tsv_.enabled()) formatter_.append_tsv(out.tsv, call);
    if (kraken_.enabled()) formatter_.append_kraken(out.kraken, call);
    out.calls.push_back(call.taxid);
    if (!lineages_.empty()) append_candidate_taxa(result, out);
    out.bases += call.length1 + call.length2;
  }
}

void QueryWriter::write(const Batch& batch, QuerySummary& summary) {
  if (batch.out.error) std::rethrow_exception(batch.out.error);
  tsv_.write(batch.out.tsv);
  kraken_.write(batch.out.kraken);
  for (taxonomy::taxid_t taxid : batch.out.calls) counts_.add(taxid);
  std::span<const taxonomy::taxid_t> taxa = batch.out.candidate_taxa;
  for (const std::uint32_t n : batch.out.candidate_taxa_counts) {
    candidate_sets_.add(taxa.first(n));
    taxa = taxa.subspan(n);
  }
  summary.reads += batch.out.calls.size();
  summary.bases += batch.out.bases;
  counters_.reads.store(summary.reads, std::memory_order_relaxed);
  counters_.first_file_bytes.store(batch.first_file_bytes, std::memory_order_relaxed);
}

void QueryWriter::finish(QuerySummary& summary) {
  if (report_.enabled()) report_.write(report::kraken_report(db_.taxonomy, counts_));
  if (abundance_.enabled() && options_.abundance_em)
    abundance_.write(report::estimated_abundance_table(
        db_.taxonomy, counts_, options_.abundance_rank,
        report::estimate_abundance(candidate_sets_),
        report::genome_lengths_at(db_, options_.abundance_rank)));
  else if (abundance_.enabled())
    abundance_.write(report::abundance_table(db_.taxonomy, counts_, options_.abundance_rank));
  for (OutputFile* out : {&tsv_, &kraken_, &report_, &abundance_}) out->close();
  summary.classified = counts_.total() - counts_.unclassified;
}

QuerySummary run_with_safe_outputs(const QueryOptions& options,
                                   const std::function<QuerySummary()>& run) {
  if (options.batch_size == 0) throw std::invalid_argument("--batch-size must be at least 1");
  check_query_paths(options, {});
  // Until the query has succeeded, a failure or an interrupt removes every
  // output file, new or old, also one already committed: a failed query
  // leaves none of its outputs behind, stale ones included.
  std::vector<output::RemoveOnFailure> outputs;
  for (const output::NamedPath& out : query_outputs(options))
    if (!out.path.empty() && out.path != "-")
      outputs.emplace_back(output::resolve_output(out.path, {}).path);
  const QuerySummary summary = run();
  for (output::RemoveOnFailure& out : outputs) out.keep();
  return summary;
}

}  // namespace metawarp::pipeline
