#pragma once
// The MetaPhlAn-style report (kraken2 --use-mpa-style), as Kraken2 2.1.2
// writes it (its reports.cc, MpaReportDFS):
//   d__Bacteria|p__Pseudomonadota|c__Gammaproteobacteria<TAB>reads in the clade
// - one line per taxon of a main rank (code D, K, P, C, O, F, G or S, no
//   digit), in the report's order; unclassified and root are not listed;
// - the path holds its ancestors of main ranks; taxa of other ranks (R1, D1,
//   G1, ...) are neither listed nor in paths;
// - prefixes: D "d__" (superkingdom; here also NCBI's 2025 domain and
//   acellular root, which keep the code D), K "k__", P "p__", C "c__",
//   O "o__", F "f__", G "g__", S "s__"; names as they are, spaces kept.
// KrakenTools' kreport2mpa (1.2.1 on) writes the same from the report but
// for its default --remove-spaces (`s__Escherichia_coli`).
// With --report-zero-counts the taxa without reads are listed too (count 0).
#include <string>
#include <vector>

#include "report/kraken_report.hpp"

namespace metawarp::report {

std::string mpa_report(const std::vector<ReportLine>& lines);

}  // namespace metawarp::report
