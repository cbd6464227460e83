// The rule for symbolic links, the kernel's protected_symlinks applied by
// metawarp itself (whatever the system's setting, and to every link it
// resolves): a link in a sticky world-writable folder is followed only when
// its owner is the caller or the folder's owner. Root makes "another user's"
// links with lchown; without root there is no other owner to give them.
#include <sys/stat.h>
#include <unistd.h>

#include "catch.hpp"
#include "output/atomic_file.hpp"
#include "output/output_path.hpp"
#include "output_test_support.hpp"

using namespace metawarp;
using namespace metawarp::test;
using output::AtomicFile;
using output::OnFailure;

namespace {

constexpr uid_t other_user = 65534;  // "nobody": no account is needed to own a link

// A folder like /tmp (sticky, world-writable) in `dir`, owned by `owner`.
std::string sticky_folder(const ScratchDir& dir, const std::string& name, uid_t owner) {
  const std::string folder = dir / name;
  std::filesystem::create_directory(folder);
  if (::chmod(folder.c_str(), 01777) != 0 || ::chown(folder.c_str(), owner, gid_t(-1)) != 0)
    throw std::runtime_error("cannot make the sticky folder " + folder);
  return folder;
}

void plant_link(const std::string& target, const std::string& link, uid_t owner) {
  std::filesystem::create_symlink(target, link);
  if (::lchown(link.c_str(), owner, gid_t(-1)) != 0)
    throw std::runtime_error("cannot give the link " + link + " away");
}

}  // namespace

TEST_CASE("output links: another user's link in a sticky world-writable folder is refused") {
  if (!running_as_root("no link can belong to another user; nothing to check")) return;
  ScratchDir dir("links_planted");
  const std::string victim = dir / "victim.txt";
  write_text(victim, "victim\n");
  const std::string sticky = sticky_folder(dir, "sticky", 0);
  const std::string link = sticky + "/evil_out.tsv";
  plant_link(victim, link, other_user);

  const std::string message = error_writing(link, "replaced");
  CHECK(contains(message, "cannot write '" + link + "'"));
  CHECK(contains(message, "symbolic link"));
  CHECK(contains(message, "sticky"));
  const std::string database_message = error_of([&] {
    AtomicFile file(link, OnFailure::keep_existing, "database");
    file.commit();
  });
  CHECK(contains(database_message, "cannot write database '" + link + "'"));
  CHECK(read_text(victim) == "victim\n");
  CHECK(S_ISLNK(lstat_of(link).st_mode));
  // The distinctness check resolves paths too: it may not follow it either.
  CHECK_THROWS(output::resolve_path(link));

  // Dangling: following it would create a file where the other user chose.
  plant_link(dir / "created.tsv", sticky + "/dangling.tsv", other_user);
  CHECK(contains(error_writing(sticky + "/dangling.tsv", "created"), "symbolic link"));
  CHECK_FALSE(std::filesystem::exists(dir / "created.tsv"));

  // A link as a folder on the way.
  std::filesystem::create_directory(dir / "private");
  plant_link(dir / "private", sticky + "/folder", other_user);
  CHECK(contains(error_writing(sticky + "/folder/out.tsv", "placed"), "symbolic link"));
  CHECK(std::filesystem::is_empty(dir / "private"));

  // A link on the way to the planted one is followed, the planted one not.
  std::filesystem::create_symlink(link, dir / "mine.tsv");
  CHECK(contains(error_writing(dir / "mine.tsv", "replaced"), "symbolic link"));
  CHECK(read_text(victim) == "victim\n");
  CHECK(temporaries_in(dir.path()).empty());
  CHECK(temporaries_in(sticky).empty());
}

TEST_CASE("output links: links the caller may follow lead to their target, which is replaced") {
  ScratchDir dir("links_allowed");
  const bool root = ::geteuid() == 0;
  const uid_t self = ::geteuid();
  const std::string sticky = sticky_folder(dir, "sticky", self);

  // The caller's own link in a sticky folder.
  write_text(dir / "mine.tsv", "old");
  plant_link(dir / "mine.tsv", sticky + "/own.tsv", self);
  CHECK(error_writing(sticky + "/own.tsv", "new") == "");
  CHECK(read_text(dir / "mine.tsv") == "new");
  CHECK(S_ISLNK(lstat_of(sticky + "/own.tsv").st_mode));
  if (!root) return;

  // A link owned by the sticky folder's owner.
  const std::string theirs = sticky_folder(dir, "theirs", other_user);
  write_text(dir / "target.tsv", "old");
  plant_link(dir / "target.tsv", theirs + "/link.tsv", other_user);
  CHECK(error_writing(theirs + "/link.tsv", "new") == "");
  CHECK(read_text(dir / "target.tsv") == "new");

  // Another user's link in a folder that is not sticky and world-writable.
  std::filesystem::create_directory(dir / "plain");
  write_text(dir / "plain_target.tsv", "old");
  plant_link(dir / "plain_target.tsv", dir / "plain/link.tsv", other_user);
  CHECK(error_writing(dir / "plain/link.tsv", "new") == "");
  CHECK(read_text(dir / "plain_target.tsv") == "new");
  CHECK(temporaries_in(dir.path()).empty());
}
