// Fuzz target: the cluster-file reader (DESIGN 4.1). Any input must either give a finalized cluster
// or an InputError; nothing else may escape, crash, hang or allocate without bound. An accepted
// cluster must also survive the SDK's writer: its JSON (to_json) reads back and writes the same bytes.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "assignor/host/formats/cluster_writer.hpp"
#include "assignor/errors.hpp"
#include "assignor/host/formats/cluster_reader.hpp"
#include "assignor/scenario.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  assignor::fuzz::quiet_logs();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  assignor::Cluster cluster;
  try {
    cluster = assignor::host::parse_cluster(text, "fuzz.yaml", assignor::fuzz::limits());
  } catch (const assignor::InputError&) {
    return 0;  // the expected answer to bad input
  }
  const std::string once = assignor::host::cluster_to_json(cluster);
  assignor::Cluster again;
  try {
    again = assignor::host::parse_cluster(once, "rewritten.json", assignor::fuzz::limits());
  } catch (const assignor::InputError& e) {
    assignor::fuzz::fail("an accepted cluster, written as JSON, does not read back", e.what(), once);
  }
  const std::string twice = assignor::host::cluster_to_json(again);
  if (twice != once) assignor::fuzz::fail("writing the cluster read back gives different bytes", once, twice);
  return 0;
}
