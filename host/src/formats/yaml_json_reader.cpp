#include "assignor/host/formats/yaml_json_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <limits>
#include <new>
#include <system_error>

#include <fmt/format.h>

#include "assignor/errors.hpp"
#include "assignor/host/support/printable.hpp"

namespace assignor::host::detail {

std::string location(const std::string& source, const DocMark& mark) {
  if (mark.is_null()) return source;
  return fmt::format("{}:{}:{}", source, mark.line + 1, mark.column + 1);
}

void fail(const std::string& source, const DocMark& mark, std::string_view place, std::string_view problem) {
  if (place.empty()) throw InputError(fmt::format("{}: {}", location(source, mark), printable(problem)));
  throw InputError(fmt::format("{}: {}: {}", location(source, mark), printable(place), printable(problem)));
}

std::string join_place(std::string_view place, std::string_view field) {
  if (place.empty()) return std::string(field);
  if (field.empty()) return std::string(place);
  return fmt::format("{}: {}", place, field);
}

std::string describe(const Node& node) {
  switch (node.Type()) {
    case DocType::Null:
    case DocType::Undefined: return "null";
    case DocType::Sequence: return "a list";
    case DocType::Map: return "a map";
    case DocType::Scalar: break;
  }
  std::string text(node.Scalar());
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  // Quoted scalars are strings for sure; plain ones are shown as written (in JSON they are numbers
  // or booleans).
  if (node.IsQuoted()) return fmt::format("the string \"{}\"", text);
  if (node.FromJson()) return fmt::format("the {} {}", text == "true" || text == "false" ? "boolean" : "number", text);
  return fmt::format("'{}'", text);
}

std::string source_name(const std::filesystem::path& path) {
  return path == "-" ? std::string("standard input") : path.string();
}

std::string input_path_problem(const std::filesystem::path& path) {
  if (path == "-") return {};
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) return S_ISDIR(st.st_mode) ? "a directory, not a file" : "";
  const int error = errno;
  if (error == ELOOP) return "a symlink loop (too many levels of symbolic links)";
  if (error == ENOENT) {
    std::error_code ec;
    if (std::filesystem::is_symlink(std::filesystem::symlink_status(path, ec))) {
      const auto target = std::filesystem::read_symlink(path, ec);
      return fmt::format("a symlink to {}, which does not exist", printable(target.string()));
    }
    return "no such file";
  }
  return std::error_code(error, std::generic_category()).message();
}

std::string regular_file_problem(const std::filesystem::path& path) {
  if (std::string problem = input_path_problem(path); !problem.empty()) return problem;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::error_code(errno, std::generic_category()).message();
  if (S_ISREG(st.st_mode)) return {};
  if (S_ISFIFO(st.st_mode)) return "a FIFO, not a file";
  if (S_ISSOCK(st.st_mode)) return "a socket, not a file";
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return "a device, not a file";
  return "not a regular file";
}

int open_input(const std::string& source, const std::filesystem::path& path, std::string_view what) {
  if (const std::string problem = input_path_problem(path); !problem.empty())
    throw InputError(fmt::format("{}: cannot read {}: {}", source, what, problem));
  auto failed = [&](int error) {
    return InputError(
        fmt::format("{}: cannot read {}: {}", source, what, std::error_code(error, std::generic_category()).message()));
  };
  // "-" is standard input (a copy of its descriptor, so that closing it here closes nothing else).
  const int fd =
      path == "-" ? ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3) : ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw failed(errno);
  // Blocking again for the reads: a writer that is slow to write is waited for.
  if (const int flags = ::fcntl(fd, F_GETFL); flags == -1 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == -1) {
    const int error = errno;
    ::close(fd);
    throw failed(error);
  }
  return fd;
}

std::string read_text_file(const std::string& source, const std::filesystem::path& path, std::string_view what,
                           std::uint64_t max_bytes) {
  auto too_large = [&](std::string_view size) {
    return InputError(
        fmt::format("{}: the {} is too large ({} bytes); the limit is {} bytes "
                    "(limits.max_file_mb in the config)",
                    source, what, size, max_bytes));
  };
  auto failed = [&](int error) {
    return InputError(
        fmt::format("{}: cannot read {}: {}", source, what, std::error_code(error, std::generic_category()).message()));
  };
  const int fd = open_input(source, path, what);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  // A regular file is read into exactly its size (plus the padding the JSON parser reads past the
  // end, so that it needs no copy); a stream (a pipe, a device) in chunks that are joined only once
  // it has ended within the limit, so memory never runs ahead of what was read.
  struct stat st {};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (regular && static_cast<std::uint64_t>(st.st_size) > max_bytes) throw too_large(std::to_string(st.st_size));
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  std::vector<std::string> chunks;
  std::uint64_t total = 0;
  if (regular)
    chunks.emplace_back().reserve(static_cast<std::size_t>(
        std::min<std::uint64_t>(static_cast<std::uint64_t>(st.st_size), max_bytes) + 1 + kJsonPadding));
  for (;;) {
    if (chunks.empty() || (!regular && chunks.back().size() == kChunk)) chunks.emplace_back().reserve(kChunk);
    std::string& chunk = chunks.back();
    const std::size_t old = chunk.size();
    const std::size_t room = regular ? std::max<std::size_t>(chunk.capacity() - old, 1) : kChunk - old;
    chunk.resize(old + room);
    const ssize_t n = ::read(fd, chunk.data() + old, room);
    if (n < 0 && errno == EINTR) {
      chunk.resize(old);
      continue;
    }
    if (n < 0) throw failed(errno);
    chunk.resize(old + static_cast<std::size_t>(n));
    if (n == 0) break;
    total += static_cast<std::uint64_t>(n);
    if (total > max_bytes) throw too_large(fmt::format("more than {}", max_bytes));
  }
  std::string text;
  if (chunks.size() == 1) {
    text = std::move(chunks.front());
  } else {
    text.reserve(static_cast<std::size_t>(total) + kJsonPadding);
    for (const auto& chunk : chunks) text += chunk;
  }
  // The padding holds blanks, not whatever the allocator left there (the parser reads, never uses it).
  const std::size_t size = text.size();
  text.append(kJsonPadding, ' ');
  text.resize(size);
  return text;
}

namespace {

// JSON that a tool wrote into a YAML file behind comment lines ('# generated by ...'), a '---'
// document start or a '...' end: the same text with those lines blanked, so that every other
// line and column stays where it was, and padded for the JSON parser. Empty when there are no such
// lines, or when what follows them does not start like a JSON object. (Read as YAML, such a file
// is one flow collection, which yaml-cpp holds token by token until it closes.)
std::string json_behind_yaml_comments(std::string_view text) {
  auto is_marker = [](std::string_view line, bool leading) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) return true;  // blank
    if (line[first] == '#') return true;
    const std::string_view marker = leading ? "---" : "...";
    return first == 0 && line.substr(0, 3) == marker && line.find_first_not_of(" \t\r", 3) == std::string_view::npos;
  };
  std::size_t head = 0;  // the end of the leading comment lines
  bool any = false;
  while (head < text.size()) {
    const std::size_t end = std::min(text.find('\n', head), text.size());
    const std::string_view line = text.substr(head, end - head);
    if (!is_marker(line, /*leading=*/true)) break;
    any = any || line.find_first_not_of(" \t\r") != std::string_view::npos;
    head = end + 1;
  }
  if (head >= text.size()) return {};
  const auto first = text.find_first_not_of(" \t\r\n", head);
  if (first == std::string_view::npos || text[first] != '{') return {};
  std::size_t tail = text.size();  // the start of the trailing comment lines
  while (tail > head) {
    std::size_t start = text.rfind('\n', tail - 1);
    start = start == std::string_view::npos ? 0 : start + 1;
    if (start < head || !is_marker(text.substr(start, tail - start), /*leading=*/false)) break;
    any = any || text.substr(start, tail - start).find_first_not_of(" \t\r\n") != std::string_view::npos;
    if (start == 0) break;
    tail = start - 1;
  }
  if (!any) return {};
  std::string json;
  json.reserve(text.size() + kJsonPadding);
  json.assign(text);
  for (std::size_t i = 0; i < head && i < json.size(); ++i)
    if (json[i] != '\n') json[i] = ' ';
  for (std::size_t i = tail; i < json.size(); ++i)
    if (json[i] != '\n') json[i] = ' ';
  const std::size_t size = json.size();
  json.append(kJsonPadding, ' ');
  json.resize(size);
  return json;
}

}  // namespace

LoadedDocument load_document(std::string_view text, const std::string& source, std::string_view what,
                             std::uint64_t max_bytes, std::size_t readable) {
  if (text.size() > max_bytes)
    throw InputError(
        fmt::format("{}: {} bytes is more than the limit of {} bytes (limits.max_file_mb in the "
                    "config)",
                    source, text.size(), max_bytes));
  try {
    // Strict JSON (what `assignor generate` and other tools write) takes the fast path.
    if (auto json = parse_json_document(text, source, readable)) return {std::move(json)};
    if (const std::string blanked = json_behind_yaml_comments(text); !blanked.empty())
      if (auto json = parse_json_document(blanked, source, blanked.capacity())) return {std::move(json)};
    return {parse_yaml_document(text, source, what)};
  } catch (const std::bad_alloc&) {
    throw InputError(
        fmt::format("{}: ran out of memory reading this {}-byte file; free memory, or split or "
                    "shrink the file",
                    source, text.size()));
  }
}

LoadedDocument load_json_document(std::string_view text, const std::string& source, std::string_view what,
                                  std::size_t readable) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) throw InputError(fmt::format("{}: empty file (expected {})", source, what));
  if (text[first] != '{')
    throw InputError(fmt::format("{}: expected {} (a JSON object, starting with '{{')", source, what));
  try {
    if (auto json = parse_json_document(text, source, readable)) return {std::move(json)};
    try {
      (void)parse_yaml_document(text, source, what);
    } catch (const InputError& e) {
      throw InputError(fmt::format("{} (not valid JSON)", e.what()));
    }
    throw InputError(fmt::format("{}: not valid JSON (expected {}, strict JSON as programs write it)", source, what));
  } catch (const std::bad_alloc&) {
    throw InputError(fmt::format("{}: ran out of memory reading this {}-byte file", source, text.size()));
  }
}

// ---- strict scalar conversions ----------------------------------------------------------------

IntParse parse_int64(std::string_view text, std::int64_t& out) {
  if (text.empty()) return IntParse::not_an_integer;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (*first == '+') ++first;  // "+5" is an integer too
  if (first == last || (*first != '-' && (*first < '0' || *first > '9'))) return IntParse::not_an_integer;
  auto [ptr, ec] = std::from_chars(first, last, out);
  if (ec == std::errc::result_out_of_range) {
    // Make sure the rest is digits, so that "99999999999999999999x" is "not an integer".
    const char* p = first + (*first == '-' ? 1 : 0);
    for (; p != last; ++p)
      if (*p < '0' || *p > '9') return IntParse::not_an_integer;
    return IntParse::out_of_range;
  }
  if (ec != std::errc{} || ptr != last) return IntParse::not_an_integer;
  return IntParse::ok;
}

NumberParse parse_number(std::string_view text, double& out) noexcept {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (first != last && *first == '+') ++first;
  auto [ptr, ec] = std::from_chars(first, last, out);
  if (first == last || ec == std::errc::invalid_argument || ptr != last) return NumberParse::not_a_number;
  if (ec == std::errc::result_out_of_range || !std::isfinite(out)) return NumberParse::not_finite;
  return NumberParse::ok;
}

bool acceptable_unicode_text(std::string_view s) noexcept {
  return invalid_utf8_at(s) == std::string_view::npos && first_control_character(s) == std::string_view::npos;
}

// ---- FieldReader ------------------------------------------------------------------------------

void FieldReader::check_length(const Node& node, Place place) const {
  if (!node.IsScalar()) return;
  const std::string_view s = node.Scalar();
  if (acceptable_text(s, max_string_length_)) return;
  if (s.size() > max_string_length_)
    fail_at(node, place,
            fmt::format("{} bytes long, more than the limit of {} (limits.max_id_length in the config)", s.size(),
                        max_string_length_));
  if (const std::size_t bad = invalid_utf8_at(s); bad != std::string_view::npos)
    fail_at(node, place,
            fmt::format("not valid UTF-8 (byte 0x{:02x} at offset {}); files must be UTF-8",
                        static_cast<unsigned char>(s[bad]), bad));
  if (const std::size_t bad = first_control_character(s); bad != std::string_view::npos)
    fail_at(node, place,
            static_cast<unsigned char>(s[bad]) < 0x80
                ? fmt::format("contains a control character (0x{:02x} at offset {}); ids and names must be printable",
                              static_cast<unsigned char>(s[bad]), bad)
                : fmt::format("contains a Unicode control character ({} at offset {}: a C1 control, a bidirectional "
                              "override or a line separator); ids and names must be printable",
                              printable(s.substr(bad, 3)).substr(0, 6), bad));
}

void FieldReader::fail_at(const Node& node, Place place, std::string_view problem) const {
  fail(source_, node.Mark(), place.str(), problem);
}

void FieldReader::wrong_kind(const Node& node, Place place, std::string_view expected) const {
  fail_at(node, place, fmt::format("expected {}, got {}", expected, describe(node)));
}

std::string_view FieldReader::string_view(const Node& node, Place place, bool allow_empty) const {
  // In JSON a string is quoted: `"id": 1e400` is a number, not the client '1e400'. (A plain YAML
  // scalar is a string to yaml-cpp and stays one.)
  if (!node.IsScalar() || (node.FromJson() && !node.IsQuoted())) wrong_kind(node, place, "a string");
  const std::string_view s = node.Scalar();
  if (!allow_empty && s.empty()) fail_at(node, place, "must not be empty");
  check_length(node, place);
  return s;
}

std::int64_t FieldReader::integer(const Node& node, Place place) const {
  if (!is_plain_scalar(node)) wrong_kind(node, place, "an integer");
  std::int64_t value = 0;
  switch (parse_int64(node.Scalar(), value)) {
    case IntParse::ok: return value;
    case IntParse::out_of_range:
      fail_at(node, place, fmt::format("integer {} is out of range (64-bit signed)", node.Scalar()));
    case IntParse::not_an_integer: break;
  }
  wrong_kind(node, place, "an integer");
}

std::int64_t FieldReader::integer_in(const Node& node, Place place, std::int64_t min, std::int64_t max) const {
  const std::int64_t v = integer(node, place);
  if (v < min) fail_at(node, place, fmt::format("must be >= {}, got {}", min, v));
  if (v > max) fail_at(node, place, fmt::format("must be <= {}, got {}", max, v));
  return v;
}

double FieldReader::number(const Node& node, Place place) const {
  if (!is_plain_scalar(node)) wrong_kind(node, place, "a number");
  double value = 0;
  switch (parse_number(node.Scalar(), value)) {
    case NumberParse::ok: return value;
    case NumberParse::not_finite: fail_at(node, place, fmt::format("must be a finite number, got {}", node.Scalar()));
    case NumberParse::not_a_number: break;
  }
  wrong_kind(node, place, "a number");
}

bool FieldReader::boolean(const Node& node, Place place) const {
  if (is_plain_scalar(node)) {
    const std::string_view s = node.Scalar();
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
  }
  wrong_kind(node, place, "a boolean (true or false)");
}

// ---- Fields -----------------------------------------------------------------------------------

Fields::Fields(const FieldReader& reader, const Node& map, Place place, const std::vector<std::string>& known,
               DeferChecks)
    : reader_(reader),
      map_(map),
      known_(known),
      keys_(known.size()),
      values_(known.size()),
      present_(known.size(), false) {
  reader.expect_map(map, place);
  for (auto it = map.begin(); it != map.end(); ++it) {
    const Node key = it->first;
    if (!key.IsScalar()) reader.fail_at(key, place, fmt::format("keys must be strings, got {}", describe(key)));
    const std::string_view name = key.Scalar();
    std::size_t i = 0;
    while (i < known.size() && known[i] != name) ++i;
    if (i == known.size()) {
      if (!problem_) problem_.emplace(key, unknown_key(name));
      continue;
    }
    if (present_[i]) {
      if (!problem_)
        problem_.emplace(key, fmt::format("key '{}' given twice (first at line {})", name, keys_[i].Mark().line + 1));
      continue;
    }
    present_[i] = true;
    keys_[i] = key;
    values_[i] = it->second;
  }
}

void Fields::missing(std::size_t i, Place place) const {
  if (!present_[i]) reader_.fail_at(map_, place, fmt::format("missing required key '{}'", known_[i]));
  reader_.fail_at(keys_[i], join_place(place.str(), known_[i]), "missing value");
}

std::string Fields::unknown_key(std::string_view name) const {
  std::string problem = fmt::format("unknown key '{}'", name);
  if (const std::string near = nearest(std::string(name), known_); !near.empty())
    return problem + fmt::format("; did you mean '{}'?", near);
  problem += "; known keys:";
  for (std::size_t k = 0; k < known_.size(); ++k) problem += (k ? ", " : " ") + known_[k];
  return problem;
}

}  // namespace assignor::host::detail
