#include "pipeline/build/sharded_build_executor.hpp"

#include <vector>

#include "db/index_concat.hpp"
#include "metawarp/host/parallel_for.hpp"
#include "metawarp/index/feature_split.hpp"
#include "pipeline/build/build_estimate.hpp"

namespace metawarp::pipeline {
namespace {

class ShardedBuildExecutor final : public BuildExecutor {
 public:
  explicit ShardedBuildExecutor(std::vector<std::unique_ptr<BuildExecutor>> shards)
      : shards_(std::move(shards)) {}

  void add(TargetSequence target) override {
    for (std::size_t s = 0; s + 1 < shards_.size(); ++s) shards_[s]->add(target);  // a copy
    shards_.back()->add(std::move(target));
  }

  void flush() override {
    for (auto& shard : shards_) shard->flush();
  }

  // The shards finalize side by side, one host thread each (a GPU shard
  // selects its device on its thread; shards of one GPU share it); their
  // indexes are concatenated in range order, as if finalized one by one.
  BuiltIndex finalize() override {
    std::vector<db::FeatureIndex> parts(shards_.size());
    host::parallel_for(shards_.size(), unsigned(shards_.size()),
                       [&](std::size_t s) { parts[s] = shards_[s]->finalize().to_host(); });
    return db::concatenate(std::move(parts));
  }

  std::string stages() const override {
    std::string out;
    for (std::size_t s = 0; s < shards_.size(); ++s) {
      const std::string line = shards_[s]->stages();
      if (line.empty()) continue;
      out += (out.empty() ? "" : "\n       ") + ("shard " + std::to_string(s + 1) + "/" +
                                                std::to_string(shards_.size()) + ": " + line);
    }
    return out;
  }

 private:
  std::vector<std::unique_ptr<BuildExecutor>> shards_;
};

}  // namespace

std::unique_ptr<BuildExecutor> make_sharded_build_executor(const BuildOptions& options,
                                                           const BuildInputs& inputs,
                                                           unsigned shards,
                                                           const MakeShardExecutor& make_shard) {
  const std::vector<index::FeatureRange> ranges = index::split_features(
      options.features, shards, feature_distribution(options.params.sketch));
  std::vector<std::unique_ptr<BuildExecutor>> executors;
  for (unsigned s = 0; s < ranges.size(); ++s) {
    BuildOptions shard = options;
    shard.features = ranges[s];
    executors.push_back(make_shard(std::move(shard), inputs, s));
  }
  return std::make_unique<ShardedBuildExecutor>(std::move(executors));
}

}  // namespace metawarp::pipeline
