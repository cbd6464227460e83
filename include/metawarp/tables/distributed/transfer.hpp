#pragma once
// What an exchange moves: a list of transfers between shards, each a run of
// elements from one shard's send buffer to another's receive buffer. Plain
// host data, built from per-shard counts; the exchanges (exchange.cuh) only
// execute them. Shard numbers are positions in the shard list (NCCL ranks).
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "metawarp/config.hpp"

namespace metawarp::tables::distributed {

struct Transfer {
  unsigned from = 0;               // sending shard
  unsigned to = 0;                 // receiving shard
  std::uint64_t send_offset = 0;   // elements into the sender's buffer
  std::uint64_t recv_offset = 0;   // elements into the receiver's buffer
  std::uint64_t count = 0;         // elements
};

// counts[s][d]: elements shard s sends to shard d; shard s's send buffer holds
// its segments in destination order, shard d receives them in source order.
// The shapes every all-to-all of the tables uses; receive sizes per shard
// come back in recv_totals (the sum of column d).
struct AllToAllPlan {
  std::vector<Transfer> transfers;
  std::vector<std::uint64_t> recv_totals;
};

inline AllToAllPlan plan_all_to_all(const std::vector<std::vector<std::uint64_t>>& counts) {
  const std::size_t shards = counts.size();
  AllToAllPlan plan;
  plan.recv_totals.assign(shards, 0);
  std::vector<std::uint64_t> send_offset(shards, 0);
  for (std::size_t s = 0; s < shards; ++s) {
    if (counts[s].size() != shards) throw std::invalid_argument("all-to-all counts must be square");
  }
  for (std::size_t d = 0; d < shards; ++d) {
    for (std::size_t s = 0; s < shards; ++s) {
      const std::uint64_t c = counts[s][d];
      plan.transfers.push_back(Transfer{unsigned(s), unsigned(d), send_offset[s],
                                        plan.recv_totals[d], c});
      send_offset[s] += c;
      plan.recv_totals[d] += c;
    }
  }
  return plan;
}

// The transfers of `plan` between distinct shards, each receiver's laid out
// one after another in its buffer without its own segment (what a shard
// sends itself need not travel: an insert reads it where it is), and how
// many each receives. The order of the segments in a receiver stays the
// plan's (by sender).
inline AllToAllPlan between_shards(const AllToAllPlan& plan) {
  AllToAllPlan remote;
  remote.recv_totals.assign(plan.recv_totals.size(), 0);
  for (const Transfer& t : plan.transfers) {
    if (t.from == t.to) continue;
    remote.transfers.push_back(Transfer{t.from, t.to, t.send_offset, remote.recv_totals[t.to],
                                        t.count});
    remote.recv_totals[t.to] += t.count;
  }
  return remote;
}

// Shard s's segment to itself in `plan` (count 0 when it has none).
inline Transfer own_segment(const AllToAllPlan& plan, unsigned s) {
  for (const Transfer& t : plan.transfers) {
    if (t.from == s && t.to == s) return t;
  }
  return Transfer{s, s, 0, 0, 0};
}

// The reverse of `plan`: every transfer sent back (receiver's offsets become
// the sender's), e.g. query answers returning along the path the keys came.
inline std::vector<Transfer> reverse(const std::vector<Transfer>& transfers) {
  std::vector<Transfer> back;
  back.reserve(transfers.size());
  for (const Transfer& t : transfers) {
    back.push_back(Transfer{t.to, t.from, t.recv_offset, t.send_offset, t.count});
  }
  return back;
}

}  // namespace metawarp::tables::distributed
