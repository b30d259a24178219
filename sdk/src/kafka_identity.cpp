#include "assignor/kafka_identity.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "assignor/lags.hpp"

namespace assignor {

std::optional<JavaUuid> parse_uuid(std::string_view text) noexcept {
  if (text.size() != 36) return std::nullopt;
  std::uint64_t halves[2] = {0, 0};
  int digits = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return std::nullopt;
      continue;
    }
    unsigned v = 0;
    if (c >= '0' && c <= '9')
      v = static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'f')
      v = static_cast<unsigned>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      v = static_cast<unsigned>(c - 'A' + 10);
    else
      return std::nullopt;
    std::uint64_t& half = halves[digits < 16 ? 0 : 1];
    half = (half << 4) | v;
    ++digits;
  }
  // Two's complement, as Java's long holds them.
  return JavaUuid{static_cast<std::int64_t>(halves[0]), static_cast<std::int64_t>(halves[1])};
}

std::vector<ClientIndex> kafka_client_order(const Cluster& cluster) {
  const std::size_t n = cluster.client_count();
  std::vector<ClientIndex> order(n);
  std::iota(order.begin(), order.end(), ClientIndex{0});
  std::vector<JavaUuid> ids;
  ids.reserve(n);
  for (const Client& c : cluster.clients) {
    const auto id = parse_uuid(c.id);
    if (!id) return order;  // not every id is a UUID: UUID(0, rank), the string order
    ids.push_back(*id);
  }
  std::stable_sort(order.begin(), order.end(), [&](ClientIndex a, ClientIndex b) { return ids[a] < ids[b]; });
  return order;
}

Assignment assign_in_kafka_client_order(const AssignmentInput& in,
                                        const std::function<Assignment(const AssignmentInput&)>& assign) {
  const std::vector<ClientIndex> order = kafka_client_order(in.cluster);
  if (std::is_sorted(order.begin(), order.end())) return assign(in);

  // A copy whose ids sort in Kafka's order: its client j is the cluster's order[j].
  Cluster kafka = in.cluster;
  const std::size_t n = order.size();
  const std::size_t width = std::to_string(n).size();
  std::vector<Client> clients;
  clients.reserve(n);
  for (std::size_t rank = 0; rank < n; ++rank) {
    Client c = in.cluster.clients[order[rank]];
    std::string prefix = std::to_string(rank);
    c.id = std::string(width - prefix.size(), '0') + prefix + ":" + c.id;
    clients.push_back(std::move(c));
  }
  kafka.clients = std::move(clients);
  kafka.finalize();  // already in id order: recomputes what depends on client indices
  const LagModel lags(kafka, in.settings);
  Assignment out = assign(AssignmentInput{kafka, in.settings, lags});
  for (auto* list : {&out.actives, &out.standbys, &out.warmups})
    for (Placement& p : *list)
      if (p.client < n) p.client = order[p.client];
  out.normalize();
  return out;
}

}  // namespace assignor
