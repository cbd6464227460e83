#include "pipeline/query/query_batch.hpp"

#include <algorithm>
#include <span>
#include <stdexcept>

#include "metawarp/host/clock.hpp"
#include "metawarp/host/parallel_for.hpp"
#include "output/output_check.hpp"
#include "output/output_path.hpp"
#include "output/remove_on_failure.hpp"
#include "report/abundance.hpp"
#include "report/bracken_output.hpp"
#include "report/profile_em.hpp"
#include "report/kraken_report.hpp"
#include "report/mpa_report.hpp"

namespace metawarp::pipeline {
namespace {

// The fragment's id: mate 1's id without a trailing "/1".
std::string_view read_id(const io::RecordView& mate1, bool paired) {
  std::string_view id = mate1.id();
  if (paired && id.size() > 2 && id[id.size() - 2] == '/' && id.back() == '1')
    id.remove_suffix(2);
  return id;
}

// The reads' sequences with the bases of quality below `minimum` (Phred+33)
// as 'N', as Kraken2's --minimum-base-quality masks them (it writes 'x'; both
// end every k-mer over them): copied to parsed.masked, which the reads then
// view. A FASTA record (no quality) is left as it is.
void mask_low_quality(unsigned minimum, ParsedBatch& parsed) {
  const io::ReadViewBatch& records = parsed.records;
  const std::size_t count = parsed.reads.size();
  const auto has_quality = [](const io::RecordView& r) { return !r.quality.empty(); };
  std::size_t bases = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (has_quality(records.mates1[i])) bases += parsed.reads[i].mate1.size();
    if (!parsed.reads[i].mate2.empty() && has_quality(records.mates2[i]))
      bases += parsed.reads[i].mate2.size();
  }
  std::string& masked = parsed.masked;
  masked.clear();
  masked.reserve(bases);  // the views into it stay valid while it fills
  const auto mask = [&](const io::RecordView& record, std::string_view& sequence) {
    if (!has_quality(record)) return;
    const std::size_t at = masked.size();
    for (std::size_t j = 0; j < sequence.size(); ++j)
      masked += int(record.quality[j]) - '!' < int(minimum) ? 'N' : sequence[j];
    sequence = std::string_view(masked).substr(at, sequence.size());
  };
  for (std::size_t i = 0; i < count; ++i) {
    mask(records.mates1[i], parsed.reads[i].mate1);
    if (!parsed.reads[i].mate2.empty()) mask(records.mates2[i], parsed.reads[i].mate2);
  }
}

}  // namespace

// A small input is cut into at least this many batches per worker: with one
// batch each and a short last round (1.37 M pairs are 21 GPU batches of
// 65,536 for 16 workers), most workers would idle for much of the run.
constexpr std::uintmax_t batches_per_worker = 4;
// ... but no batch is made smaller than this by that rule (a GPU batch costs
// a few fixed steps; a CPU batch of 4,096 pairs is about 1.4 MB anyway).
constexpr std::uintmax_t min_balanced_batch_bytes = std::uintmax_t(4) << 20;

std::size_t batch_byte_limit(const QueryOptions& o, std::uintmax_t file_size, bool compressed,
                             unsigned threads) {
  if (o.reads.empty() || o.reads[0] == "-" || compressed || file_size == 0) return max_batch_bytes;
  return std::size_t(std::clamp<std::uintmax_t>(file_size / (batches_per_worker * threads),
                                                min_balanced_batch_bytes, max_batch_bytes));
}

io::ReadBlockCutter open_reads(const QueryOptions& o) {
  if (o.reads.empty() || o.reads.size() > 2)
    throw std::invalid_argument("query needs one reads file (or two for pairs)");
  if (o.reads.size() == 2 && o.interleaved)
    throw std::invalid_argument("--interleaved takes one reads file, not two");
  return io::ReadBlockCutter(o.reads, o.interleaved);
}

bool parse_batch(const QueryOptions& options, io::ReadLayout layout, Batch& batch,
                 ParsedBatch& parsed) {
  BatchOutput& out = batch.out;
  out.tsv.clear();
  out.kraken.clear();
  out.calls.clear();
  for (auto* texts : {&out.classified, &out.unclassified})
    for (std::string& text : *texts) text.clear();
  out.found.clear();
  out.candidate_taxa_counts.clear();
  out.candidate_taxa.clear();
  out.bases = 0;
  out.error = nullptr;
  parsed.reads.clear();
  if (batch.empty) return false;
  const io::ParsedReads result = io::parse_read_views(layout, batch.blocks, parsed.records);
  if (result.error) {
    out.error = result.error;
    return false;
  }
  const bool paired = layout != io::ReadLayout::single;
  const io::ReadViewBatch& records = parsed.records;
  parsed.reads.resize(result.count);
  for (std::size_t i = 0; i < result.count; ++i)
    parsed.reads[i] = ReadView{records.mates1[i].sequence,
                               paired ? records.mates2[i].sequence : std::string_view()};
  if (options.minimum_base_quality > 0) mask_low_quality(options.minimum_base_quality, parsed);
  // Not cleared first: clearing would free every result's evidence lists
  // and then write each result again (hundreds of bytes a read).
  if (parsed.results.size() < result.count) parsed.results.resize(result.count);
  return true;
}

void parse_group(BatchGroup& group, std::vector<ParsedBatch>& parsed,
                 const GroupContext& context, GroupReads& out) {
  const std::size_t count = group.count;
  if (parsed.size() < count) parsed.resize(count);
  out.reads.assign(count, {});
  out.results.assign(count, {});
  host::parallel_for(count, std::max(1u, context.threads), [&](std::size_t b) {
    if (!parse_batch(context.options, context.layout, *group.batches[b], parsed[b])) return;
    out.reads[b] = parsed[b].reads;
    out.results[b] = std::span(parsed[b].results.data(), parsed[b].reads.size());
  });
}

void format_group(BatchGroup& group, const std::vector<ParsedBatch>& parsed,
                  const GroupContext& context) {
  const bool paired = context.layout != io::ReadLayout::single;
  host::parallel_for(group.count, std::max(1u, context.threads), [&](std::size_t b) {
    context.writer.format(*group.batches[b], parsed[b], paired);
  });
}

GroupSeconds decide_group(BatchGroup& group, std::vector<ParsedBatch>& parsed,
                          const GroupContext& context, const DecideGroup& decide) {
  GroupSeconds seconds;
  host::Stopwatch clock;
  GroupReads reads;
  parse_group(group, parsed, context, reads);
  seconds.parse = clock.lap();
  decide(reads.reads, reads.results);
  format_group(group, parsed, context);
  seconds.decide = clock.lap();
  return seconds;
}

QueryWriter::QueryWriter(const db::Database& db, const QueryOptions& o, QueryCounters& counters)
    : db_(db),
      options_(o),
      formatter_(db, o.top_hits, o.use_names),
      tsv_(o.output),
      kraken_(o.kraken_output),
      report_(o.report),
      abundance_(o.abundance),
      bracken_(o.bracken_output),
      reads_(o.classified_out, o.unclassified_out, o.reads.size() == 2 || o.interleaved,
             o.kraken2_read_outputs),
      counters_(counters) {
  tsv_.write(formatter_.tsv_header());
  if ((o.abundance_em && abundance_.enabled()) || bracken_.enabled())
    lineages_ = target_lineages(db);
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
    call.id = read_id(parsed.records.mates1[i], paired);
    call.length1 = parsed.reads[i].mate1.size();
    call.length2 = parsed.reads[i].mate2.size();
    call.paired = paired;
    call.taxid = result.assignment.taxid;
    call.candidates = result.top;
    call.candidate_count = result.candidate_count;
    call.evidence = result.evidence.data();
    call.evidence_runs = std::uint32_t(result.evidence.size());
    call.mate1_runs = result.mate1_runs;
    if (tsv_.enabled()) formatter_.append_tsv(out.tsv, call);
    if (kraken_.enabled()) formatter_.append_kraken(out.kraken, call);
    out.calls.push_back(call.taxid);
    if (options_.report_minimizer_data)
      out.found.insert(out.found.end(), result.found.begin(), result.found.end());
    if (!lineages_.empty()) append_candidate_taxa(result, out);
    out.bases += call.length1 + call.length2;
  }
  if (reads_.enabled()) split_reads_by_call(batch, paired);
}

// The batch's records, as read, to the classified or unclassified texts by
// their calls (the records' texts in input order: interleaved mates
// alternate in the one block).
void QueryWriter::split_reads_by_call(Batch& batch, bool paired) const {
  BatchOutput& out = batch.out;
  std::vector<std::string_view> first, second;
  record_texts(batch.blocks.first, first);
  const bool interleaved = paired && options_.interleaved;
  if (paired && !interleaved) record_texts(batch.blocks.second, second);
  const std::size_t reads = out.calls.size();
  if (first.size() < (interleaved ? 2 * reads : reads) ||
      second.size() < (paired && !interleaved ? reads : 0))
    throw std::logic_error("classified/unclassified reads: fewer records than reads in a batch");
  std::string tag;
  for (std::size_t i = 0; i < reads; ++i) {
    // Classified as the per-read outputs say it: a taxon of the database.
    const bool classified = db_.taxonomy.find(out.calls[i]) != nullptr;
    std::array<std::string, 2>& texts = classified ? out.classified : out.unclassified;
    tag = classified && options_.kraken2_read_outputs ? kraken2_header_tag(out.calls[i]) : "";
    if (interleaved) {
      append_record(texts[0], first[2 * i], tag);
      append_record(texts[1], first[2 * i + 1], tag);
      continue;
    }
    append_record(texts[0], first[i], tag);
    if (paired) append_record(texts[1], second[i], tag);
  }
}

void QueryWriter::write(const Batch& batch, QuerySummary& summary) {
  if (batch.out.error) std::rethrow_exception(batch.out.error);
  tsv_.write(batch.out.tsv);
  kraken_.write(batch.out.kraken);
  for (std::size_t m = 0; m < 2; ++m) {
    reads_.classified[m].write(batch.out.classified[m]);
    reads_.unclassified[m].write(batch.out.unclassified[m]);
  }
  for (taxonomy::taxid_t taxid : batch.out.calls) counts_.add(taxid);
  if (options_.report_minimizer_data) features_seen_.add(batch.out.found);
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
  if (report_.enabled()) {
    const std::vector<report::ReportLine> lines =
        report::report_lines(db_.taxonomy, counts_, options_.report_zero_counts);
    if (options_.mpa_style) {
      report_.write(report::mpa_report(lines));
    } else if (options_.report_minimizer_data) {
      const report::MinimizerData data =
          report::clade_minimizer_data(db_.taxonomy, features_seen_);
      report_.write(report::kraken_report(
          lines, [&](taxonomy::taxid_t taxid) { return data.columns(taxid); }));
    } else {
      report_.write(report::kraken_report(lines));
    }
  }
  const std::optional<report::EmEstimate> estimate = abundance_estimate(summary);
  if (abundance_.enabled() && estimate)
    abundance_.write(report::estimated_abundance_table(
        db_.taxonomy, counts_, options_.abundance_rank, *estimate,
        report::genome_lengths_at(db_, options_.abundance_rank)));
  else if (abundance_.enabled())
    abundance_.write(report::abundance_table(db_.taxonomy, counts_, options_.abundance_rank));
  if (bracken_.enabled())
    bracken_.write(report::bracken_output(db_.taxonomy, counts_, options_.abundance_rank,
                                          *estimate));
  for (OutputFile* out : {&tsv_, &kraken_, &report_, &abundance_, &bracken_}) out->close();
  reads_.close();
  summary.classified = counts_.total() - counts_.unclassified;
}

std::optional<report::EmEstimate> QueryWriter::abundance_estimate(
    const QuerySummary& summary) const {
  if (!bracken_.enabled() && !(abundance_.enabled() && (options_.abundance_em ||
                                                        options_.abundance_profiles)))
    return std::nullopt;
  const bool paired = options_.reads.size() == 2 || options_.interleaved;
  const report::ReadProfile* profile = nullptr;
  if (options_.abundance_profiles && summary.reads > 0)
    profile = report::nearest_profile(
        *options_.abundance_profiles, paired,
        double(summary.bases) / double(summary.reads) / (paired ? 2.0 : 1.0));
  if (profile)
    return report::estimate_at_rank(
        report::estimate_with_profile(*profile, db_.taxonomy, counts_, options_.abundance_rank,
                                      report::profile_em_options),
        db_.taxonomy, options_.abundance_rank);
  if (!options_.abundance_em && !bracken_.enabled()) return std::nullopt;
  return report::estimate_abundance(candidate_sets_);
}

ClassifierOptions engine_options(const QueryOptions& options) {
  ClassifierOptions classifier = options.classifier;
  if (!options.kraken_output.empty()) classifier.evidence = true;
  if (options.report_minimizer_data) classifier.found_features = true;
  return classifier;
}

QuerySummary run_with_safe_outputs(const QueryOptions& options,
                                   const std::function<QuerySummary()>& run) {
  if (options.batch_size == 0) throw std::invalid_argument("--batch-size must be at least 1");
  check_query_paths(options, {});
  // Until the query has succeeded, a failure or an interrupt removes every
  // output file, new or old, also one already committed: a failed query
  // leaves none of its outputs behind, stale ones included. Streams
  // (devices, FIFOs, descriptors) are never removed.
  std::vector<output::RemoveOnFailure> outputs;
  for (const output::NamedPath& out : query_outputs(options)) {
    if (out.path.empty() || out.path == "-") continue;
    const output::OutputTarget target = output::resolve_output(out.path, {});
    if (target.renamed()) outputs.emplace_back(target.path);
  }
  const QuerySummary summary = run();
  for (output::RemoveOnFailure& out : outputs) out.keep();
  return summary;
}

}  // namespace metawarp::pipeline
