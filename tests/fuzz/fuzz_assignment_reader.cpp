// Fuzz target: reading an assignment back (`assignor validate`) against a small fixed cluster. Any
// input must either give a ParsedAssignment (whose problems are validation errors) or an
// InputError; nothing else may escape, crash, hang or allocate without bound. What is read must
// hold only indices of the cluster.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "assignor/errors.hpp"
#include "assignor/host/formats/assignment_io.hpp"
#include "assignor/host/formats/cluster_reader.hpp"
#include "fuzz_support.hpp"

namespace {

const assignor::Cluster& cluster() {
  static const assignor::Cluster c = assignor::host::parse_cluster(
      "tasks: [{id: 0_0, stores: [{name: s, changelog_end_offset: 10}]}, {id: 0_1}, {id: 1_0}]\n"
      "clients: [{id: a, threads: 2}, {id: b, threads: 1}]\n",
      "fuzz-cluster.yaml");
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  assignor::fuzz::quiet_logs();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto parsed = assignor::host::parse_assignment(text, "fuzz.json", cluster());
    for (const auto* list : {&parsed.assignment.actives, &parsed.assignment.standbys, &parsed.assignment.warmups})
      for (const auto& p : *list)
        if (p.task >= cluster().task_count() || p.client >= cluster().client_count()) std::abort();
  } catch (const assignor::InputError&) {}
  return 0;
}
