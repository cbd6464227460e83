// Target -> taxid: header tags, seqid2taxid maps, accession2taxid files and
// the resolver's order.
#include <string>

#include "catch.hpp"
#include "error_of.hpp"
#include "temp_files.hpp"
#include "taxonomy/id_mapping.hpp"

using namespace metawarp::taxonomy;
using namespace metawarp::test;  // temp files, error_of, contains

TEST_CASE("taxid tags in headers", "[id_mapping]") {
  CHECK(taxid_from_header(">kraken:taxid|562|NC_000913.3 Escherichia coli") == 562u);
  CHECK(taxid_from_header("kraken:taxid|562") == 562u);
  CHECK(taxid_from_header(">taxid|1280 S. aureus") == 1280u);
  CHECK(taxid_from_header(">NC_1.1|taxid|9606|chr1") == 9606u);
  CHECK(taxid_from_header(">seq1 taxid|42\tmore") == 42u);
  CHECK(taxid_from_header(">seq1 something taxid|7") == 7u);
  CHECK(taxid_from_header(">NC_000913.3 Escherichia coli") == std::nullopt);
  CHECK(taxid_from_header(">seq taxid|") == std::nullopt);         // no digits
  CHECK(taxid_from_header(">seq taxid|12x") == std::nullopt);      // not terminated properly
  CHECK(taxid_from_header(">seq taxid|0|") == std::nullopt);       // not a taxid
  CHECK(taxid_from_header(">seq mytaxid|12|") == std::nullopt);    // part of another word
  CHECK(taxid_from_header(">seq taxid|99999999999|") == std::nullopt);  // overflows
  CHECK(taxid_from_header(">seq taxid|x taxid|5") == 5u);          // first valid one
  CHECK(taxid_from_header("") == std::nullopt);
}

TEST_CASE("accessions inside sequence ids", "[id_mapping]") {
  CHECK(accession_of("NC_000913.3") == "NC_000913.3");
  CHECK(accession_of("ref|NC_000913.3|") == "NC_000913.3");
  CHECK(accession_of("gi|123|ref|NC_000913.3|") == "NC_000913.3");
  CHECK(accession_of("kraken:taxid|562|NC_000913.3") == "NC_000913.3");
  CHECK(accession_of("gb|U00096.3|") == "U00096.3");
  CHECK(accession_of("AJ251789") == "AJ251789");
  CHECK(accession_of("NZ_CP012345.1") == "NZ_CP012345.1");
  CHECK(accession_of("AKGH01000001.1") == "AKGH01000001.1");
  CHECK(accession_of("contig_7") == "contig_7");   // unchanged
  CHECK(accession_of("chr1") == "chr1");
  CHECK(accession_of("gi|123|") == "gi|123|");
  CHECK(accession_of("") == "");

  CHECK(accession_without_version("NC_000913.3") == "NC_000913");
  CHECK(accession_without_version("NC_000913") == "NC_000913");
  CHECK(accession_without_version("odd.name") == "odd.name");

  CHECK(sequence_id_of(">NC_000913.3 Escherichia coli K-12") == "NC_000913.3");
  CHECK(sequence_id_of("NC_000913.3\tx") == "NC_000913.3");
  CHECK(sequence_id_of(">") == "");
}

TEST_CASE("seqid2taxid maps: tabs, spaces, gzip", "[id_mapping]") {
  TempDir dir;
  const std::string text =
      "NC_000913.3\t511145\n"
      "kraken:taxid|562|NZ_X1.1\t562\r\n"
      "\n"
      "AJ251789   10710  \n"
      "NC_000913.3\t511145\n";  // repeated, consistent: fine
  for (const bool gz : {false, true}) {
    const auto path = dir / (gz ? "map.gz" : "map.txt");
    gz ? write_gz(path, text) : write_text(path, text);
    const SeqIdMap map = SeqIdMap::load_seqid2taxid(path);
    CHECK(map.size() == 3);
    CHECK(map.find("NC_000913.3") == 511145u);
    CHECK(map.find("kraken:taxid|562|NZ_X1.1") == 562u);
    CHECK(map.find("AJ251789") == 10710u);
    CHECK(map.find("NC_000913") == std::nullopt);  // exact ids only
  }
}

TEST_CASE("Kraken2's prelim_map.txt: TAXID lines map, ACCNUM lines are left to accession2taxid",
          "[id_mapping]") {
  // kraken2-build --add-to-library writes library/added/prelim_map_*.txt
  // (scan_fasta_file.pl): "TAXID<TAB>seqid<TAB>taxid" for headers that name
  // their taxid, "ACCNUM<TAB>seqid<TAB>accession" for the others.
  TempDir dir;
  const auto path = dir / "prelim_map.txt";
  write_text(path,
             "TAXID\tkraken:taxid|562|NC_000913.3\t562\n"
             "ACCNUM\tNC_003197.2\tNC_003197.2\n"
             "NZ_X1.1\t28901\n");  // and a seqid2taxid line beside them
  const SeqIdMap map = SeqIdMap::load_seqid2taxid(path);
  CHECK(map.size() == 2);
  CHECK(map.find("kraken:taxid|562|NC_000913.3") == 562u);
  CHECK(map.find("NZ_X1.1") == 28901u);
  CHECK(map.find("NC_003197.2") == std::nullopt);
  write_text(path, "TAXID\tabc\tx\n");
  CHECK(contains(error_of([&] { SeqIdMap::load_seqid2taxid(path); }), "bad taxid 'x'"));
}

TEST_CASE("seqid2taxid errors name file and line", "[id_mapping]") {
  TempDir dir;
  const auto path = dir / "bad.map";
  const auto message = [&](const std::string& text) {
    write_text(path, text);
    return error_of([&] { SeqIdMap::load_seqid2taxid(path); });
  };
  std::string m = message("a\t1\nb\n");
  CHECK(contains(m, path.string() + ":2:"));
  CHECK(contains(m, "expected 2 columns"));
  m = message("a\t1\nb\t2\tc\n");
  CHECK(contains(m, path.string() + ":2:"));
  m = message("a\t1\n\nb\tx12\n");
  CHECK(contains(m, path.string() + ":3:"));
  CHECK(contains(m, "bad taxid 'x12'"));
  m = message("a\t1\nb\t2\na\t3\n");
  CHECK(contains(m, path.string() + ":3:"));
  CHECK(contains(m, "maps to taxid 3 here but to 1"));
  CHECK(contains(error_of([&] { SeqIdMap::load_seqid2taxid(dir / "absent.map"); }),
                 "absent.map"));
}

TEST_CASE("accession2taxid: filtering and version-insensitive lookups", "[id_mapping]") {
  TempDir dir;
  const std::string header = "accession\taccession.version\ttaxid\tgi\n";
  write_gz(dir / "nucl_gb.accession2taxid.gz",
           header +
               "NC_000913\tNC_000913.3\t511145\t556503834\n"
               "U00096\tU00096.3\t511145\t545778205\n"
               "AJ251789\tAJ251789.1\t10710\t1\n"
               "ZZ000001\tZZ000001.1\tnot-a-number\t2\n");  // not wanted: never parsed
  write_text(dir / "extra.accession2taxid",
             header + "NZ_CP000001\tNZ_CP000001.2\t1280\t3\n"
                      "NC_002951\tNC_002951.2\t93062\t4\n");
  const std::unordered_set<std::string> wanted{"NC_000913.3", "AJ251789", "NZ_CP000001.1",
                                               "NC_002951.2"};
  const AccessionMap map = AccessionMap::load_accession2taxid(
      {dir / "nucl_gb.accession2taxid.gz", dir / "extra.accession2taxid"}, wanted);
  CHECK(map.size() == 4);  // U00096 was not wanted
  CHECK(map.find("NC_000913.3") == 511145u);
  CHECK(map.find("NC_000913") == 511145u);    // accession alone
  CHECK(map.find("AJ251789") == 10710u);      // wanted without version
  CHECK(map.find("AJ251789.1") == 10710u);
  CHECK(map.find("NZ_CP000001.1") == 1280u);  // other version, same accession
  CHECK(map.find("NC_002951.2") == 93062u);
  CHECK(map.find("U00096.3") == std::nullopt);
  CHECK(map.find("ZZ000001.1") == std::nullopt);
}

TEST_CASE("accession2taxid errors name file and line", "[id_mapping]") {
  TempDir dir;
  const auto path = dir / "bad.accession2taxid";
  write_text(path, "accession\taccession.version\ttaxid\tgi\nNC_1\tNC_1.1\t5\t1\nNC_2\tNC_2.1\n");
  std::string m = error_of([&] { AccessionMap::load_accession2taxid({path}, {"NC_1"}); });
  CHECK(contains(m, path.string() + ":3:"));
  write_text(path, "accession\taccession.version\ttaxid\tgi\nNC_1\tNC_1.1\t5x\t1\n");
  m = error_of([&] { AccessionMap::load_accession2taxid({path}, {"NC_1"}); });
  CHECK(contains(m, path.string() + ":2:"));
  CHECK(contains(m, "bad taxid '5x'"));
}

TEST_CASE("resolver order: header, seqid map, accession map", "[id_mapping]") {
  SeqIdMap seqids;
  seqids.add("NC_000913.3", 100);
  seqids.add("gi|9|ref|NC_000002.1|", 200);
  seqids.add("NC_000003.1", 300);
  AccessionMap accessions;
  accessions.add("NC_000913.3", 1000);
  accessions.add("NC_000003.1", 3000);
  accessions.add("NC_000004.2", 4000);

  TaxidResolver resolver;
  resolver.add_seqid_map(seqids);
  resolver.add_accession_map(accessions);
  CHECK(resolver.resolve(">NC_000913.3|kraken:taxid|7 E. coli") == 7u);     // header first
  CHECK(resolver.resolve(">NC_000913.3 E. coli") == 100u);                  // then seqid map
  CHECK(resolver.resolve(">gi|9|ref|NC_000002.1| x") == 200u);              // by full id
  CHECK(resolver.resolve(">gi|1|ref|NC_000003.1| x") == 300u);              // by accession
  CHECK(resolver.resolve(">NC_000004.2 y") == 4000u);                       // accession2taxid
  CHECK(resolver.resolve(">ref|NC_000004.1|") == 4000u);                    // other version
  CHECK(resolver.resolve("NC_000004") == 4000u);                            // no version
  CHECK(resolver.resolve(">unknown_contig") == std::nullopt);

  TaxidResolver empty;
  CHECK(empty.resolve(">x taxid|5") == 5u);
  CHECK(empty.resolve(">NC_000913.3") == std::nullopt);
}

TEST_CASE("resolver with a taxonomy: merged ids, unknown ids fall through", "[id_mapping]") {
  const Taxonomy taxonomy = Taxonomy::from_nodes(
      {Node{1, 1, Rank::none, "root"}, Node{2, 1, Rank::superkingdom, "Bacteria"},
       Node{562, 2, Rank::species, "E. coli"}, Node{1280, 2, Rank::species, "S. aureus"}},
      {{4, 562}});
  SeqIdMap seqids;
  seqids.add("A1.1", 4);       // merged -> 562
  seqids.add("B1.1", 99999);   // not in the taxonomy
  seqids.add("C1.1", 1280);
  AccessionMap accessions;
  accessions.add("B1.1", 1280);
  TaxidResolver resolver(&taxonomy);
  resolver.add_seqid_map(seqids);
  resolver.add_accession_map(accessions);
  CHECK(resolver.resolve(">A1.1") == 562u);
  CHECK(resolver.resolve(">B1.1") == 1280u);                 // seqid map's taxid unknown
  CHECK(resolver.resolve(">C1.1 taxid|77777") == 1280u);     // header taxid unknown
  CHECK(resolver.resolve(">C1.1 taxid|4") == 562u);          // header wins, merged
  CHECK(resolver.resolve(">D1.1 taxid|77777") == std::nullopt);
}

TEST_CASE("maps: trailing data after gzip is an error, binary data is bounded", "[id_mapping]") {
  TempDir dir;
  const auto path = dir / "map.gz";
  const std::string good = gz_member("a\t1\n") + gz_member("b\t2\n");
  write_text(path, good + std::string(3, '\0'));
  CHECK(SeqIdMap::load_seqid2taxid(path).size() == 2);
  write_text(path, good + "more");
  CHECK(error_of([&] { SeqIdMap::load_seqid2taxid(path); }) ==
        path.string() + ": unexpected data after the end of the gzip stream (at compressed byte " +
            std::to_string(good.size()) + ")");
  const auto table = dir / "nucl.accession2taxid.gz";
  const std::string good_table = gz_member("accession\taccession.version\ttaxid\tgi\nA1\tA1.1\t5\t1\n");
  write_text(table, good_table + "\x1f");
  CHECK(error_of([&] { AccessionMap::load_accession2taxid({table}, {"A1"}); }) ==
        table.string() + ": unexpected data after the end of the gzip stream (at compressed byte " +
            std::to_string(good_table.size()) + ")");
  // No line end for ever: an error after a few MiB.
  CHECK(error_of([] { SeqIdMap::load_seqid2taxid("/dev/zero"); }) ==
        "/dev/zero:1: line longer than 1048576 bytes");
}
