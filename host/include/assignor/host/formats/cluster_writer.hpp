// Writes a cluster file (DESIGN 4.1) as JSON: what `assignor generate` and `simulate --final-state`
// write and every reader of the host reads back.
#pragma once

#include <string>

#include "assignor/model.hpp"

namespace assignor::host {

// A finalized cluster as a DESIGN 4.1 cluster file in JSON: one line per task and per client, keys
// in a fixed order, optional fields left out when they hold their default (weight 1, no stores, no
// partitions, empty lists), partition racks by name. Reading the text back (parse_cluster) and
// writing it again gives the same bytes. The layout is specified in docs/generation.md. Linear in
// the output size; a 100k-task file takes tens of milliseconds. Throws std::invalid_argument for a
// weight that is not finite.
std::string cluster_to_json(const Cluster& cluster);

}  // namespace assignor::host
