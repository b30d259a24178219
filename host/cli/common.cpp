#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <iostream>
#include <system_error>

#include "assignor/errors.hpp"
#include "assignor/host/formats/text_file.hpp"
#include "assignor/host/run/runner.hpp"
#include "assignor/host/support/logging.hpp"
#include "assignor/host/support/printable.hpp"
#include "assignor/host/support/standard_output.hpp"
#include "assignor/host/support/temporary_files.hpp"
#include "commands.hpp"

namespace assignor::cli {

namespace fs = std::filesystem;

void setup_logging(const std::string& level) { host::set_log_level(level); }

void apply_log_level(const Globals& globals, const host::Config* config) {
  if (!globals.log_level.empty())
    setup_logging(globals.log_level);
  else if (config != nullptr)
    setup_logging(config->log_level);
}

void add_plugin_path_option(CLI::App* app, std::vector<std::string>& paths) {
  app->add_option("--plugin-path", paths,
                  "Also load the plugins in this directory, or this plugin library (repeatable; like the "
                  "config's plugins.paths, without editing it)")
      ->check(CLI::ExistingPath);
}

void load_plugins(host::PluginRegistry& registry, const host::Config* config,
                  const std::vector<std::string>& plugin_paths, PluginLoading loading) {
  registry.set_allow_unsafe_permissions(config != nullptr && config->allow_unsafe_plugin_permissions);
  if (config != nullptr) registry.set_load_time_limit(config->strategy_limits.time_ms);
  auto add_directory = [&](const std::filesystem::path& dir, host::PluginOrigin origin) {
    if (loading == PluginLoading::on_demand)
      registry.index_directory(dir, origin);
    else
      registry.load_directory(dir, origin);
  };
  add_directory(host::builtin_plugin_dir(), host::PluginOrigin::bundled);
  if (config != nullptr)
    for (const auto& dir : config->plugin_paths) add_directory(dir, host::PluginOrigin::external);
  for (const auto& path : plugin_paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
      add_directory(path, host::PluginOrigin::external);
    else
      registry.load(path);
  }
  if (config != nullptr) host::check_strategy_sections(registry, *config);
}

namespace {

bool g_stdout_closed = false;

std::string errno_text(int error) { return std::error_code(error, std::generic_category()).message(); }

}  // namespace

void protect_standard_streams() {
  for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    if (fd == STDOUT_FILENO) g_stdout_closed = true;
    const int null = ::open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);  // the lowest free number: fd
    if (null >= 0 && null != fd) {
      ::dup2(null, fd);
      ::close(null);
    }
  }
  (void)host::result_output_fd();  // reserved before any strategy can run
}

Output::Output(const std::string& path) {
  if (path.empty() || path == "-") {
    name_ = "standard output";
    if (g_stdout_closed)
      throw InputError("standard output is closed: there is nowhere to write the result (give --output FILE)");
    std::cout.flush();  // anything already buffered goes first
    // The reserved copy of standard output, not fd 1: after a strategy ran in this process, fd 1 is
    // standard error, so nothing a strategy (or a thread it left running) prints joins the result.
    fd_ = host::result_output_fd();
    if (fd_ < 0)
      throw InputError("standard output is closed: there is nowhere to write the result (give --output FILE)");
    return;
  }
  name_ = path;
  owned_ = true;
  // A regular file (or a new one) is written under a temporary name beside it and renamed when
  // complete: a failure or a signal (SIGINT, SIGTERM, SIGHUP) never leaves a partial output at its
  // name (the temporary one is removed). A symlink is followed to its file; anything else (a
  // device such as /dev/null, a FIFO) is written in place.
  std::error_code ec;
  fs::path target = path;
  if (fs::is_symlink(fs::symlink_status(target, ec))) target = fs::weakly_canonical(target, ec);
  const fs::file_status status = fs::status(target, ec);
  if (!fs::exists(status) || fs::is_regular_file(status)) {
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::string pattern = (dir / ("." + target.filename().string() + ".assignor-XXXXXX")).string();
    const int fd = ::mkostemp(pattern.data(), O_CLOEXEC);
    if (fd >= 0) {
      const mode_t mask = ::umask(0);  // the mode open(0666) would have given it
      ::umask(mask);
      ::fchmod(fd, 0666 & ~mask);
      fd_ = fd;
      partial_ = host::TemporaryPath(pattern, host::TemporaryPath::Kind::file);
      final_ = target;
      return;
    }
    // No temporary file beside it (a directory we may not write): write it in place.
  }
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd_ < 0) throw InputError(fmt::format("{}: cannot open for writing: {}", path, errno_text(errno)));
}

Output::~Output() {
  if (owned_ && fd_ >= 0) ::close(fd_);  // partial_ removes an unfinished temporary file
}

void Output::write(std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd_, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw InputError(fmt::format("{}: write failed: {}", name_, errno_text(n < 0 ? errno : EIO)));
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

void Output::close() {
  if (!owned_ || fd_ < 0) return;
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) throw InputError(fmt::format("{}: write failed: {}", name_, errno_text(errno)));
  if (!partial_.path().empty()) {
    std::error_code ec;
    fs::rename(partial_.path(), final_, ec);
    if (ec) throw InputError(fmt::format("{}: cannot put the result in place: {}", name_, ec.message()));
    partial_.release();
  }
}

void write_output(const std::string& text, const std::string& path) {
  Output out(path);
  out.write(text);
  out.close();
}

int exit_after_failures(std::size_t failed, const std::string& what_failed) {
  if (failed == 0) return static_cast<int>(kOk);
  std::cerr << "assignor: error: " << what_failed << " (see the output)\n";
  return static_cast<int>(kStrategyFailed);
}

namespace {
std::string input_file_problem(const std::string& path) {
  const std::string problem = host::detail::input_path_problem(path);
  return problem.empty() ? problem : host::printable(path) + ": " + problem;
}
}  // namespace

CLI::Validator input_file() {
  return CLI::Validator([](std::string& path) { return input_file_problem(path); }, kInputFileType);
}

void require_input_file(const std::string& option, const std::string& path) {
  if (path.empty()) return;
  if (const std::string problem = input_file_problem(path); !problem.empty())
    throw InputError(fmt::format("{}: {}", option, problem));
}

void refuse_overwriting_inputs(const NamedPaths& outputs, const NamedPaths& inputs) {
  for (std::size_t i = 0; i < inputs.size(); ++i)
    for (std::size_t j = i + 1; j < inputs.size(); ++j)
      if (inputs[i].second == "-" && inputs[j].second == "-")
        throw InputError(fmt::format("{} and {} both read standard input ('-'); give one of them a file",
                                     inputs[i].first, inputs[j].first));
  auto skip = [](const std::string& path) { return path.empty() || path == "-"; };
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& [option, path] = outputs[i];
    if (skip(path)) continue;
    auto same = [&](const std::string& other) {
      std::error_code ec;
      return !skip(other) && std::filesystem::equivalent(path, other, ec) && !ec;
    };
    for (const auto& [input_option, input] : inputs)
      if (same(input))
        throw InputError(fmt::format("{} {} is the same file as {} {}: refusing to overwrite an input", option, path,
                                     input_option, input));
    for (std::size_t j = i + 1; j < outputs.size(); ++j)
      if (same(outputs[j].second) || (!skip(outputs[j].second) && outputs[j].second == path))
        throw InputError(
            fmt::format("{} and {} both name {}: give each output its own file", option, outputs[j].first, path));
  }
}

std::function<std::optional<Assignment>(const Cluster&, const AssignmentSettings&)> kafka_replayer(
    const host::PluginRegistry& registry) {
  return [&registry](const Cluster& cluster, const AssignmentSettings& settings) -> std::optional<Assignment> {
    if (registry.find("high_availability") == nullptr) return std::nullopt;
    host::Config config;
    config.strategy = "high_availability";
    config.settings = settings;
    try {
      return host::run_assignment(registry, config, cluster, "high_availability").report.assignment;
    } catch (const std::exception&) {
      return std::nullopt;
    }
  };
}

}  // namespace assignor::cli
