// Whether a server's client may read a file: the mode bits judged for the
// client's uid, gid and groups as the kernel judges them (cli/peer_access.hpp).
// The clients are made up (any uid and groups): the files are the test's own
// (chowned to a made-up owner when the test runs as root).
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli/peer_access.hpp"
#include "error_of.hpp"
#include "scratch_dir.hpp"

using namespace metawarp;
using namespace metawarp::cli;
namespace fs = std::filesystem;

namespace {

// The owner and group of the test's files: root's files go to a made-up
// owner, so that root (who may read anything) is not the owner tested.
struct Owner {
  uid_t uid;
  gid_t gid;
};

Owner own(const std::string& path) {
  if (::geteuid() == 0) REQUIRE(::lchown(path.c_str(), 4242, 4343) == 0);
  struct stat status {};
  REQUIRE(::lstat(path.c_str(), &status) == 0);
  return {status.st_uid, status.st_gid};
}

std::string make_file(const test::ScratchDir& dir, const std::string& name, mode_t mode) {
  const std::string path = dir.file(name);
  std::ofstream(path) << "x";
  REQUIRE(::chmod(path.c_str(), mode) == 0);
  return path;
}

// What require_readable_by says: "" when the client may read the file.
std::string refusal(const Peer& client, const std::string& path) {
  return test::error_of([&] { require_readable_by(client, path, "database"); });
}

Peer peer(uid_t uid, gid_t gid, std::vector<gid_t> groups = {}) {
  return Peer{1, uid, gid, std::move(groups)};
}

}  // namespace

TEST_CASE("peer access: the owner's, the group's or the others' bits") {
  const test::ScratchDir dir("peer_access");
  own(dir.path().string());
  REQUIRE(::chmod(dir.path().c_str(), 0755) == 0);
  const std::string file = make_file(dir, "db", 0400);
  const Owner owner = own(file);
  const uid_t stranger = owner.uid + 1000;
  const gid_t elsewhere = owner.gid + 1000;

  CHECK(refusal(peer(owner.uid, elsewhere), file).empty());
  const std::string refused = refusal(peer(stranger, owner.gid), file);
  CHECK(refused == "database '" + file + "': uid " + std::to_string(stranger) +
                       " may not read it: no read permission (mode 0400, owner uid " +
                       std::to_string(owner.uid) + ", group " + std::to_string(owner.gid) + ")");

  // The owner gets the owner's bits only, even where the group's would allow.
  REQUIRE(::chmod(file.c_str(), 0044) == 0);
  CHECK(refusal(peer(owner.uid, owner.gid), file).find("no read permission") != std::string::npos);
  // The group's bits: the primary group or a supplementary one.
  CHECK(refusal(peer(stranger, owner.gid), file).empty());
  CHECK(refusal(peer(stranger, elsewhere, {elsewhere + 1, owner.gid}), file).empty());
  REQUIRE(::chmod(file.c_str(), 0040) == 0);
  CHECK_FALSE(refusal(peer(stranger, elsewhere, {elsewhere + 1}), file).empty());
  // The others' bits.
  REQUIRE(::chmod(file.c_str(), 0004) == 0);
  CHECK(refusal(peer(stranger, elsewhere), file).empty());
  CHECK_FALSE(refusal(peer(stranger, owner.gid), file).empty());  // a member: the group's bits
  // Root may read anything.
  REQUIRE(::chmod(file.c_str(), 0) == 0);
  CHECK(refusal(peer(0, 0), file).empty());
  CHECK_FALSE(refusal(peer(owner.uid, owner.gid), file).empty());
}

TEST_CASE("peer access: search permission on every folder, links followed") {
  const test::ScratchDir dir("peer_access");
  own(dir.path().string());
  REQUIRE(::chmod(dir.path().c_str(), 0755) == 0);
  fs::create_directory(dir / "closed");
  const Owner owner = own(dir.file("closed"));
  make_file(dir, "closed/db", 0444);
  own(dir.file("closed/db"));
  const uid_t stranger = owner.uid + 1000;
  const gid_t elsewhere = owner.gid + 1000;
  const Peer client = peer(stranger, elsewhere);

  // Readable by all, in a folder others may not search.
  REQUIRE(::chmod(dir.file("closed").c_str(), 0754) == 0);
  CHECK(refusal(client, dir.file("closed/db")) ==
        "database '" + dir.file("closed/db") + "': uid " + std::to_string(stranger) +
            " may not read it: no search permission on the folder '" + dir.file("closed") +
            "' (mode 0754, owner uid " + std::to_string(owner.uid) + ", group " +
            std::to_string(owner.gid) + ")");
  CHECK(refusal(peer(stranger, owner.gid), dir.file("closed/db")).empty());
  // The same file by a relative link, an absolute link, a link to a link
  // and a path through "..": each passes through the closed folder.
  fs::create_directory(dir / "open");
  own(dir.file("open"));
  fs::create_symlink("../closed/db", dir / "open" / "relative");
  fs::create_symlink(dir / "closed" / "db", dir / "open" / "absolute");
  fs::create_symlink("relative", dir / "open" / "chained");
  const std::vector<std::string> ways = {"open/relative", "open/absolute", "open/chained",
                                          "open/../closed/db"};
  for (const std::string& way : ways) {
    INFO(way);
    CHECK(refusal(client, dir.file(way)).find("no search permission on the folder") !=
          std::string::npos);
  }
  REQUIRE(::chmod(dir.file("closed").c_str(), 0755) == 0);
  for (const std::string& way : ways) {
    INFO(way);
    CHECK(refusal(client, dir.file(way)).empty());
  }
  // A relative path starts at the working folder.
  const fs::path before = fs::current_path();
  fs::current_path(dir.path());
  CHECK(refusal(client, "open/relative").empty());
  REQUIRE(::chmod(dir.file("closed").c_str(), 0750) == 0);
  CHECK_FALSE(refusal(client, "open/relative").empty());
  fs::current_path(before);
  REQUIRE(::chmod(dir.file("closed").c_str(), 0755) == 0);

  // Paths that lead nowhere say why.
  fs::create_symlink("missing", dir / "open" / "dangling");
  CHECK(refusal(client, dir.file("open/dangling")).find("No such file") != std::string::npos);
  fs::create_symlink("loop", dir / "open" / "loop");
  CHECK(refusal(client, dir.file("open/loop")).find("too many symbolic links") !=
        std::string::npos);
  CHECK(refusal(client, dir.file("closed/db/x")).find("is not a folder") != std::string::npos);
}
