// Fuzz target: the cluster-file reader (DESIGN 4.1). Any input must either give a finalized cluster
// or an InputError; nothing else may escape, crash, hang or allocate without bound. An accepted
// cluster must also survive the SDK's writer: its JSON (to_json) reads back and writes the same bytes.
//
// And the reader's two ways agree: whatever the JSON fast path (cluster_json_reader.cpp) accepts,
// the document path (the authority) accepts too and builds the same cluster from (field by field),
// with the same DocumentBudget; what users get from parse_cluster is the document path's cluster or
// its message.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "assignor/errors.hpp"
#include "assignor/host/formats/cluster_reader.hpp"
#include "assignor/host/formats/cluster_writer.hpp"
#include "assignor/scenario.hpp"
#include "cluster_difference.hpp"
#include "cluster_file.hpp"
#include "fuzz_support.hpp"

namespace {

// The fast path against the document path on `text`; the document path's cluster, or nullopt
// with its message in `error`.
std::optional<assignor::Cluster> both_paths(std::string_view text, std::string& error) {
  using namespace assignor::host::detail;
  DocumentBudget cost(0);
  const std::optional<assignor::Cluster> fast = read_cluster_json(text, text.size(), assignor::fuzz::limits(), &cost);
  std::optional<assignor::Cluster> slow;
  try {
    slow = parse_cluster_document(text, "fuzz.yaml", assignor::fuzz::limits());
  } catch (const assignor::InputError& e) {
    error = e.what();
  }
  if (fast) {
    if (!slow) assignor::fuzz::fail("the JSON fast path accepted what the document path refuses", error, text);
    if (const std::string diff = assignor::testing::cluster_difference(*fast, *slow); !diff.empty())
      assignor::fuzz::fail("the JSON fast path built another cluster than the document path", diff, text);
    const auto document = parse_json_document(text, "fuzz.yaml");
    if (!document || !(document->cost() == cost))
      assignor::fuzz::fail("the JSON fast path's budget is not the document's", "", text);
  }
  return slow;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  assignor::fuzz::quiet_logs();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string error;
  const std::optional<assignor::Cluster> slow = both_paths(text, error);
  assignor::Cluster cluster;
  try {
    cluster = assignor::host::parse_cluster(text, "fuzz.yaml", assignor::fuzz::limits());
  } catch (const assignor::InputError& e) {
    if (slow) assignor::fuzz::fail("parse_cluster refused what the document path accepts", e.what(), text);
    if (error != e.what()) assignor::fuzz::fail("parse_cluster's message is not the document path's", e.what(), error);
    return 0;  // the expected answer to bad input
  }
  if (!slow) assignor::fuzz::fail("parse_cluster accepted what the document path refuses", error, text);
  if (const std::string diff = assignor::testing::cluster_difference(cluster, *slow); !diff.empty())
    assignor::fuzz::fail("parse_cluster built another cluster than the document path", diff, text);
  const std::string once = assignor::host::cluster_to_json(cluster);
  std::string again_error;
  if (!both_paths(once, again_error))
    assignor::fuzz::fail("an accepted cluster, written as JSON, does not read back", again_error, once);
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
