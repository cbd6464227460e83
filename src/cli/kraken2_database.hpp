#pragma once
// Where Kraken2's --db leads on metawarp's Kraken2 command lines: a folder
// holds its metawarp database as FOLDER/metawarp.mwdb (`metawarp
// kraken2-build --build --db FOLDER` writes it there), and a database file
// may be named directly. The environment is read as Kraken 2 reads it.
#include <filesystem>
#include <string>

namespace metawarp::cli {

// The database file inside a Kraken2-style database folder.
inline constexpr const char* kraken2_database_file = "metawarp.mwdb";

// The database `kraken2 --db NAME` classifies against, found as Kraken2's
// kraken2lib.pm find_db finds a database: NAME (empty: not given, then
// $KRAKEN2_DEFAULT_DB); a NAME without '/' is looked for in the folders of
// $KRAKEN2_DB_PATH (':'-separated; the working folder when unset). A folder
// must hold metawarp.mwdb; a file is taken as the database. Throws
// std::invalid_argument naming what is missing and how to make it.
std::filesystem::path find_kraken2_database(std::string name);

// A whole number from the environment variable `variable` (Kraken2's
// KRAKEN2_NUM_THREADS, KRAKEN2_THREAD_CT), or `fallback` when it is unset or
// empty; checked as a command-line number is, in [1, max].
unsigned threads_from_environment(const char* variable, unsigned fallback, unsigned max);

}  // namespace metawarp::cli
