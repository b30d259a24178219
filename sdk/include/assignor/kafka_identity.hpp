// Identity in Kafka's terms (DESIGN 2): the order in which Kafka's client-side assignors
// (HighAvailabilityTaskAssignor, LegacyStickyTaskAssignor, FallbackPriorTaskAssignor) see the
// clients of a group, for strategies that carry a Kafka name and must give Kafka's answer.
//
// Kafka keys its clients by process id, a java.util.UUID, in a TreeMap: they sort by
// UUID.compareTo, a *signed* comparison of the high 64 bits, then of the low 64 bits, so ids
// starting with 8-f come before ids starting with 0-7 (string order reproduces none of the
// stateless placements of a real log). When every client id is a UUID (a group imported from a
// log), that is the order; otherwise every id stands for UUID(0, rank) with rank the ids' string
// order, which is the cluster's own index order.
//
//   Assignment assign(const AssignmentInput& in) override {
//     return assign_in_kafka_client_order(in, [&](const AssignmentInput& kafka) { return pack(kafka); });
//   }
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "assignor/assignment.hpp"
#include "assignor/model.hpp"
#include "assignor/strategy.hpp"

namespace assignor {

struct JavaUuid {
  std::int64_t most = 0;   // UUID.getMostSignificantBits()
  std::int64_t least = 0;  // UUID.getLeastSignificantBits()
  // UUID.compareTo: signed, high half first.
  friend bool operator<(const JavaUuid& a, const JavaUuid& b) noexcept {
    return a.most != b.most ? a.most < b.most : a.least < b.least;
  }
  friend bool operator==(const JavaUuid& a, const JavaUuid& b) noexcept = default;
};

// The UUID a canonical 8-4-4-4-12 hex text (either case) stands for; nullopt for anything else.
std::optional<JavaUuid> parse_uuid(std::string_view text) noexcept;

// The clients in Kafka's order (first = the one Kafka iterates first): Java's UUID order when every
// id is a UUID, else 0, 1, 2, ... (the cluster's order). O(clients log clients).
std::vector<ClientIndex> kafka_client_order(const Cluster& cluster);

// Runs `assign` on the input with its clients renumbered in Kafka's order, and maps the answer
// back to the cluster's own indices: a strategy written against client indices (ties by index,
// round-robin in index order) then breaks its ties as Kafka does. When Kafka's order is the
// cluster's own, `assign` gets the input as it is (no copy). Otherwise it gets a copy whose client
// ids carry their rank in front ("0003:8a1f...", so that the copy sorts in Kafka's order); the
// lags are recomputed for it.
Assignment assign_in_kafka_client_order(const AssignmentInput& in,
                                        const std::function<Assignment(const AssignmentInput&)>& assign);

}  // namespace assignor
