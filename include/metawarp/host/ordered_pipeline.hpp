#pragma once
// Items through a chain of steps in input order, as minimap2's kt_pipeline:
// a source step makes item 0, 1, 2, ...; serial steps see the items one at a
// time in that order, parallel steps on several threads in any order; the
// last step (the sink) runs on the calling thread, in input order again. At
// most `slots` items exist; each is made once and reused, so the buffers it
// holds keep their capacity from one use to the next. The first exception of
// any step stops every step (nothing waits forever) and is rethrown by run().
#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "metawarp/host/channel.hpp"
#include "metawarp/host/clock.hpp"
#include "metawarp/host/thread_group.hpp"

namespace metawarp::host {

template <class Item>
class OrderedPipeline {
 public:
  explicit OrderedPipeline(std::size_t slots) : items_(slots == 0 ? 1 : slots) {}

  // The first step: fills the next item; false when the input has ended. One
  // thread of its own.
  void source(std::function<bool(Item&)> make) { source_ = std::move(make); }
  // A step that sees the items one at a time, in input order, on one thread.
  void serial(std::function<void(Item&)> step) {
    steps_.push_back(Step{1, [step = std::move(step)](Item& item, unsigned) { step(item); }});
  }
  // A step run by `threads` threads at once, items in any order; `worker`
  // (0 .. threads-1) says which thread, for per-thread state.
  void parallel(unsigned threads, std::function<void(Item&, unsigned worker)> step) {
    steps_.push_back(Step{threads == 0 ? 1 : threads, std::move(step)});
  }

  // Runs the pipeline; `sink` is the last step, called on this thread in
  // input order. Returns when the input has ended and every item has been
  // through the sink; rethrows the first error of any step.
  void run(const std::function<void(Item&)>& sink);

  // Seconds the threads of each step spent waiting for their input (summed
  // over a step's threads): index 0 the source (waiting for a free item),
  // then the steps in order, the sink last. Where the time goes.
  const std::vector<double>& wait_seconds() const { return wait_seconds_; }

 private:
  struct Step {
    unsigned threads;
    std::function<void(Item&, unsigned)> run;
  };
  struct Token {
    std::size_t index = 0;
    Item* item = nullptr;
  };
  using Queue = Channel<Token>;

  // Channel::pop, adding the time it waited to `waited`.
  template <class T>
  static bool timed_pop(Channel<T>& in, T& out, double& waited) {
    const auto start = std::chrono::steady_clock::now();
    const bool got = in.pop(out);
    waited += seconds_since(start);
    return got;
  }

  // Pops the tokens of `in` and passes them to `f` in index order.
  template <class F>
  void in_order(Queue& in, double& waited, F f) {
    std::map<std::size_t, Item*> early;  // arrived before their turn
    std::size_t next = 0;
    Token token;
    for (;;) {
      if (!timed_pop(in, token, waited)) return;
      early.emplace(token.index, token.item);
      for (auto it = early.begin(); it != early.end() && it->first == next; it = early.erase(it))
        f(Token{next++, it->second});
    }
  }

  void add_wait(std::size_t step, double seconds) {
    std::lock_guard lock(wait_mutex_);
    wait_seconds_[step] += seconds;
  }

  std::vector<Item> items_;
  std::function<bool(Item&)> source_;
  std::vector<Step> steps_;
  std::mutex wait_mutex_;
  std::vector<double> wait_seconds_;
};

template <class Item>
void OrderedPipeline<Item>::run(const std::function<void(Item&)>& sink) {
  const std::size_t steps = steps_.size();
  wait_seconds_.assign(steps + 2, 0.0);
  // queues[s]: the input of step s; queues[steps]: the sink's.
  std::vector<std::unique_ptr<Queue>> queues;
  for (std::size_t s = 0; s <= steps; ++s) queues.push_back(std::make_unique<Queue>(items_.size()));
  Channel<Item*> free_items(items_.size());
  for (Item& item : items_) free_items.push(&item);

  ThreadGroup group;
  group.on_stop([&] {
    free_items.cancel();
    for (auto& q : queues) q->cancel();
  });
  group.spawn([&] {
    double waited = 0;
    for (std::size_t index = 0;; ++index) {
      Item* item = nullptr;
      if (!timed_pop(free_items, item, waited) || !source_(*item)) break;
      if (!queues[0]->push(Token{index, item})) break;
    }
    queues[0]->close();
    add_wait(0, waited);
  });
  for (std::size_t s = 0; s < steps; ++s) {
    Step& step = steps_[s];
    Queue& in = *queues[s];
    Queue& out = *queues[s + 1];
    if (step.threads == 1) {
      group.spawn([&, s] {
        double waited = 0;
        in_order(in, waited, [&](Token token) {
          step.run(*token.item, 0);
          out.push(token);
        });
        out.close();
        add_wait(s + 1, waited);
      });
      continue;
    }
    // The last worker of a parallel step to finish closes its output.
    auto running = std::make_shared<std::atomic<unsigned>>(step.threads);
    for (unsigned w = 0; w < step.threads; ++w)
      group.spawn([&, s, w, running] {
        double waited = 0;
        Token token;
        while (timed_pop(in, token, waited)) {
          step.run(*token.item, w);
          out.push(token);
        }
        add_wait(s + 1, waited);
        if (running->fetch_sub(1) == 1) out.close();
      });
  }
  try {
    double waited = 0;
    in_order(*queues[steps], waited, [&](Token token) {
      sink(*token.item);
      free_items.push(token.item);
    });
    add_wait(steps + 1, waited);
  } catch (...) {
    group.fail(std::current_exception());
  }
  group.join();
}

}  // namespace metawarp::host
