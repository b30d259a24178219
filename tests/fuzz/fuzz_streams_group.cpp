// Fuzz target: the reader of `kafka-streams-groups.sh --describe --members --verbose` output
// (import streams-group, host/src/import/streams_group.cpp). It must refuse with an InputError or
// return a group whose cluster file the cluster reader accepts (issue 32: the importer wrote files
// its own readers refused). Nothing may crash, hang or allocate without bound.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "assignor/errors.hpp"
#include "assignor/host/formats/cluster_reader.hpp"
#include "assignor/host/formats/cluster_writer.hpp"
#include "assignor/host/import/streams_group.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace assignor;
  fuzz::quiet_logs();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto group = fuzz::accepted(text, [](std::string_view t) {
    return host::read_streams_group(t, "describe.txt", std::nullopt, fuzz::limits());
  });
  if (!group) return 0;
  const std::string json = host::cluster_to_json(group->cluster);
  try {
    const Cluster again = host::parse_cluster(json, "group.cluster.json", fuzz::limits());
    if (again.task_count() != group->cluster.task_count() || again.client_count() != group->cluster.client_count())
      fuzz::fail("the group's cluster file reads back as itself", json, text);
  } catch (const InputError& e) {
    fuzz::fail("the group's cluster file is one the cluster reader accepts", e.what(), json);
  }
  return 0;
}
