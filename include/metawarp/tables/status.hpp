#pragma once
// Outcome of table operations: a bitmask so one value can carry several
// findings (a bulk call ORs the status of all its keys together). Errors mean
// the operation did not happen; warnings mean it happened with a caveat or
// was a no-op by design.
#include <cstdint>

#include "metawarp/config.hpp"

namespace metawarp::tables {

class Status {
 public:
  using bits_type = std::uint32_t;

  // Errors.
  static constexpr bits_type out_of_memory = 1u << 0;  // value pool exhausted
  static constexpr bits_type table_full = 1u << 1;     // probed every window, no free slot
  static constexpr bits_type invalid_key = 1u << 2;    // key equals the empty/tombstone sentinel
  // Warnings.
  static constexpr bits_type duplicate_key = 1u << 8;          // single-value insert of present key
  static constexpr bits_type max_values_per_key_reached = 1u << 9;
  static constexpr bits_type probing_length_exceeded = 1u << 10;  // gave up after max probes
  static constexpr bits_type key_not_found = 1u << 11;  // find/erase of an absent key

  static constexpr bits_type error_mask = out_of_memory | table_full | invalid_key;
  static constexpr bits_type warning_mask =
      duplicate_key | max_values_per_key_reached | probing_length_exceeded | key_not_found;

  constexpr Status() = default;
  METAWARP_HD constexpr explicit Status(bits_type bits) : bits_(bits) {}

  METAWARP_HD constexpr bits_type bits() const { return bits_; }
  METAWARP_HD constexpr bool ok() const { return bits_ == 0; }
  METAWARP_HD constexpr bool has_error() const { return (bits_ & error_mask) != 0; }
  METAWARP_HD constexpr bool has_warning() const { return (bits_ & warning_mask) != 0; }
  METAWARP_HD constexpr bool has(bits_type flag) const { return (bits_ & flag) == flag; }
  METAWARP_HD constexpr Status operator|(Status other) const { return Status(bits_ | other.bits_); }
  METAWARP_HD constexpr Status& operator|=(Status other) {
    bits_ |= other.bits_;
    return *this;
  }
  constexpr bool operator==(const Status&) const = default;

 private:
  bits_type bits_ = 0;
};

// Human-readable list of the set flags, e.g. "table_full|duplicate_key".
inline const char* status_flag_name(Status::bits_type flag) {
  switch (flag) {
    case Status::out_of_memory: return "out_of_memory";
    case Status::table_full: return "table_full";
    case Status::invalid_key: return "invalid_key";
    case Status::duplicate_key: return "duplicate_key";
    case Status::max_values_per_key_reached: return "max_values_per_key_reached";
    case Status::probing_length_exceeded: return "probing_length_exceeded";
    case Status::key_not_found: return "key_not_found";
    default: return "unknown";
  }
}

}  // namespace metawarp::tables
