// Reads cluster files (DESIGN 4.1; YAML, or JSON which is valid YAML) into the SDK's model.
//
// Every malformed input raises assignor::InputError whose message names the file, the place (line
// and column where known, the task or client id, the field) and the problem, e.g.
//   "cluster.yaml:14:5: client 'c2': previous_active: unknown task '9_9'"
// Nothing is silently dropped: unknown keys are errors too (with the nearest known key suggested).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "assignor/host/formats/limits.hpp"
#include "assignor/model.hpp"

namespace assignor::host {

// With the default InputLimits, or with `limits` (past one: InputError naming the limit).
Cluster read_cluster_file(const std::filesystem::path& path);
Cluster read_cluster_file(const std::filesystem::path& path, const InputLimits& limits);

// `source_name` is used in messages in place of a file name.
Cluster parse_cluster(std::string_view text, const std::string& source_name);
Cluster parse_cluster(std::string_view text, const std::string& source_name, const InputLimits& limits);

}  // namespace assignor::host
