#include "cli/kraken2_messages.hpp"

#include <cstdio>

#include "cli/command_line.hpp"

namespace metawarp::cli {
namespace {

double ratio(double part, double whole) { return whole > 0 ? part / whole : 0.0; }

}  // namespace

std::string kraken2_version_text() {
  return std::string("Kraken version metawarp-") + program_version_number + "\nmetawarp " +
         program_version_number + " running Kraken 2.1.2's command line; not Kraken 2";
}

std::string kraken2_summary(const pipeline::QuerySummary& s) {
  const double reads = double(s.reads), minutes = s.seconds / 60;
  const unsigned long long unclassified = s.reads - s.classified;
  char text[512];
  std::snprintf(text, sizeof text,
                "%llu sequences (%.2f Mbp) processed in %.3fs (%.1f Kseq/m, %.2f Mbp/m).\n"
                "  %llu sequences classified (%.2f%%)\n"
                "  %llu sequences unclassified (%.2f%%)\n",
                (unsigned long long)s.reads, double(s.bases) / 1.0e6, s.seconds,
                ratio(reads / 1.0e3, minutes), ratio(double(s.bases) / 1.0e6, minutes),
                (unsigned long long)s.classified, ratio(double(s.classified) * 100.0, reads),
                unclassified, ratio(double(unclassified) * 100.0, reads));
  return text;
}

}  // namespace metawarp::cli
