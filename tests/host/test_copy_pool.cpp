// CopyPool: every byte where it was asked, groups waited for as a whole, the
// source kept alive by the copies and freed by the last one, on 0 to 8 threads.
#include <algorithm>
#include <atomic>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "metawarp/host/copy_pool.hpp"

namespace host = metawarp::host;

namespace {

// A source that counts its own destruction.
struct CountedSource {
  std::string bytes;
  std::atomic<int>* freed;
  ~CountedSource() { ++*freed; }
};

}  // namespace

TEST_CASE("CopyPool copies every piece into place, the group waited for as a whole") {
  for (unsigned threads : {0u, 1u, 3u, 8u}) {
    for (std::size_t piece : {std::size_t(1), std::size_t(7), std::size_t(4096)}) {
      CAPTURE(threads, piece);
      std::atomic<int> freed{0};
      std::vector<char> target(100000, '.');
      std::string expected(target.size(), '.');
      {
        host::CopyPool pool(threads, piece);
        host::CopyGroup group;
        std::mt19937 random(threads * 31 + unsigned(piece));
        std::size_t at = 0;
        int sources = 0;
        while (at < target.size()) {
          const std::size_t n = std::min<std::size_t>(target.size() - at, 1 + random() % 9000);
          auto source = std::make_shared<CountedSource>();
          source->freed = &freed;
          for (std::size_t i = 0; i < n + 10; ++i) source->bytes.push_back(char('A' + random() % 26));
          const std::size_t from = random() % 10;
          expected.replace(at, n, source->bytes, from, n);
          pool.copy(group, source, source->bytes.data() + from, target.data() + at, n);
          at += n;
          ++sources;
        }
        group.wait();
        CHECK(std::string(target.begin(), target.end()) == expected);
        // Every source freed by its last copy, once: the caller dropped its share.
        CHECK(freed.load() == sources);
      }
    }
  }
}

TEST_CASE("CopyPool waits for one group without the other's copies, and drains at destruction") {
  std::vector<char> a(1 << 20, 0), b(1 << 20, 0);
  auto source = std::make_shared<std::string>(std::size_t(1) << 20, 'x');
  {
    host::CopyGroup first, second;  // before the pool: they outlive it, as the batches do
    host::CopyPool pool(4, 1024);
    pool.copy(first, source, source->data(), a.data(), a.size());
    pool.copy(second, source, source->data(), b.data(), b.size());
    first.wait();
    CHECK(std::count(a.begin(), a.end(), 'x') == std::ptrdiff_t(a.size()));
    // `second` is not waited for: the pool's destructor finishes its copies.
  }
  CHECK(std::count(b.begin(), b.end(), 'x') == std::ptrdiff_t(b.size()));
  CHECK(source.use_count() == 1);
}

TEST_CASE("CopyPool: a group destroyed before its copies are done waits for them") {
  std::vector<char> a(std::size_t(4) << 20, 0);
  auto source = std::make_shared<std::string>(a.size(), 'y');
  host::CopyPool pool(3, 4096);
  {
    host::CopyGroup group;
    pool.copy(group, source, source->data(), a.data(), a.size());
  }  // ~CopyGroup waits: every copy is done when it returns
  CHECK(std::count(a.begin(), a.end(), 'y') == std::ptrdiff_t(a.size()));
}
