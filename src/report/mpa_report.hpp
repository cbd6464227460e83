#pragma once
// The MetaPhlAn-style report (kraken2 --use-mpa-style), as KrakenTools'
// kreport2mpa writes it from a Kraken2 report with its default options, so
// pipelines that run kreport2mpa get the same file from metawarp directly:
//   k__Bacteria|p__Pseudomonadota|c__Gammaproteobacteria<TAB>reads in the clade
// - one line per taxon of a main rank (code D, K, P, C, O, F, G or S, no
//   digit), in the report's order; unclassified and root are not listed;
// - the path holds its ancestors of main ranks; taxa of other ranks (R1, D1,
//   G1, ...) are neither listed nor in paths;
// - prefixes: D and K -> "k__" (MetaPhlAn's kingdom level), P "p__", C "c__",
//   O "o__", F "f__", G "g__", S "s__"; spaces in names become '_'.
// With --report-zero-counts the taxa without reads are listed too (count 0).
#include <string>
#include <vector>

#include "report/kraken_report.hpp"

namespace metawarp::report {

std::string mpa_report(const std::vector<ReportLine>& lines);

}  // namespace metawarp::report
