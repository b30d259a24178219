// Fuzz target: the Kafka Streams log reader (host/src/import, DESIGN 4.7) on one log line. It must
// find or not find a Decided message without throwing; parse it or say why not (never both, never
// neither); and a group it rebuilds must be a cluster file that writes and reads back, with
// Kafka's decision naming only its tasks and clients. Nothing may crash, hang or allocate without
// bound.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "assignor/errors.hpp"
#include "assignor/host/formats/cluster_reader.hpp"
#include "assignor/host/formats/cluster_writer.hpp"
#include "assignor/host/import/kafka_log.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace assignor;
  fuzz::quiet_logs();
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  (void)host::corrupt_end_warning(line);
  (void)host::streams_config_entries(line);
  const auto found = host::find_decided_line(line);
  if (!found) return 0;
  const host::ParsedDecided parsed = host::parse_decided_message(found->message);
  if (parsed.rebalance.has_value() == !parsed.problem.empty())
    fuzz::fail("a Decided message is either parsed or refused with a reason", parsed.problem, found->message);
  if (!parsed.rebalance) return 0;
  host::Reconstructed r;
  try {
    AssignmentSettings settings;
    settings.num_standby_replicas = static_cast<std::uint32_t>(size % 3);
    r = host::reconstruct(*parsed.rebalance, settings, size % 2 == 0);
  } catch (const std::invalid_argument&) {
    return 0;  // a group the log cannot make (the importer skips it with a warning)
  }
  const std::string text = host::cluster_to_json(r.cluster);
  try {
    const Cluster again = host::parse_cluster(text, "rebuilt.json", fuzz::limits());
    if (again.task_count() != r.cluster.task_count() || again.client_count() != r.cluster.client_count())
      fuzz::fail("the rebuilt cluster reads back as itself", text, found->message);
  } catch (const InputError& e) {
    fuzz::fail("the rebuilt cluster file reads back", e.what(), text);
  }
  for (const auto* list : {&r.kafka.actives, &r.kafka.standbys, &r.kafka.warmups})
    for (const Placement& p : *list)
      if (p.task >= r.cluster.task_count() || p.client >= r.cluster.client_count())
        fuzz::fail("Kafka's decision names only the group's tasks and clients", found->message, text);
  return 0;
}
