#include "assignor/host/plugins/plugin_registry.hpp"

#include <boost/dll/library_info.hpp>
#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <dlfcn.h>
#include <elf.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <cerrno>
#include <fstream>
#include <optional>
#include <deque>
#include <cstring>
#include <system_error>

#include "assignor/errors.hpp"
#include "assignor/host/support/printable.hpp"
#include "assignor/host/support/logging.hpp"
#include "assignor/host/process/child_process.hpp"

namespace assignor::host {

namespace fs = std::filesystem;

namespace {

bool looks_like_library(const fs::path& p) {
  const auto name = p.filename().string();
  return p.extension() == ".so" || name.find(".so.") != std::string::npos;
}

std::string user_name(uid_t uid) {
  if (const passwd* pw = ::getpwuid(uid); pw != nullptr && pw->pw_name != nullptr) return pw->pw_name;
  return "?";
}

// Why `path` (a plugin file or a directory plugins are loaded from; symlinks already resolved) must
// not be trusted, or "" when it can be: anyone who can write it, or its owner when that is neither
// root nor us, can make this process run their code.
std::string unsafe_reason(const fs::path& path, bool directory) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};  // the load itself reports what is missing
  const char* what = directory ? "directory" : "file";
  const auto mode = static_cast<unsigned>(st.st_mode & 07777);
  const bool group = (st.st_mode & S_IWGRP) != 0;
  const bool others = (st.st_mode & S_IWOTH) != 0;
  if (group || others)
    return fmt::format("the {} {} is writable by {} (mode {:04o}), so another user could put their code "
                       "in this process; fix it with 'chmod go-w {}'",
                       what, path.string(), group && others ? "its group and others" : (group ? "its group" : "others"),
                       mode, path.string());
  if (st.st_uid != 0 && st.st_uid != ::geteuid())
    return fmt::format("the {} {} is owned by user '{}' (uid {}), neither root nor the user running assignor "
                       "('{}', uid {})",
                       what, path.string(), user_name(st.st_uid), st.st_uid, user_name(::geteuid()), ::geteuid());
  return {};
}

// Why `dir` or a directory above it lets someone else replace what is below it, or "": each must be
// owned by root or us and not writable by group or others, unless the sticky bit is set (as on
// /tmp: there nobody can rename or delete what is not theirs).
std::string unsafe_ancestor_reason(const fs::path& dir) {
  for (fs::path p = dir; !p.empty(); p = p.parent_path()) {
    struct stat st {};
    if (::stat(p.c_str(), &st) == 0) {
      const bool writable = (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
      if (writable && (st.st_mode & S_ISVTX) == 0)
        return fmt::format("the directory {} is writable by {} (mode {:04o}) without the sticky bit, so another "
                           "user could replace what is below it; fix it with 'chmod go-w {}'",
                           p.string(), (st.st_mode & S_IWOTH) != 0 ? "others" : "its group",
                           static_cast<unsigned>(st.st_mode & 07777), p.string());
      if (st.st_uid != 0 && st.st_uid != ::geteuid())
        return fmt::format("the directory {} is owned by user '{}' (uid {}), neither root nor the user running "
                           "assignor",
                           p.string(), user_name(st.st_uid), st.st_uid);
    }
    if (p == p.root_path()) break;
  }
  return {};
}

// A 64-bit ELF file's program headers, read from the file with bounds checks (the file is
// untrusted): none when it is not a 64-bit ELF file or its headers cannot be read.
class ElfSegments {
 public:
  explicit ElfSegments(const fs::path& file) : in_(file, std::ios::binary) {
    Elf64_Ehdr header{};
    if (!read_at(0, &header, sizeof header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
        header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_phentsize != sizeof(Elf64_Phdr) || header.e_phnum > 4096)
      return;
    segments_.resize(header.e_phnum);
    if (!segments_.empty() && !read_at(header.e_phoff, segments_.data(), segments_.size() * sizeof(Elf64_Phdr)))
      segments_.clear();
  }
  const std::vector<Elf64_Phdr>& segments() const noexcept { return segments_; }
  bool read_at(std::uint64_t offset, void* out, std::size_t size) {
    in_.clear();
    in_.seekg(static_cast<std::streamoff>(offset));
    return static_cast<bool>(in_.read(static_cast<char*>(out), static_cast<std::streamsize>(size)));
  }

 private:
  std::ifstream in_;
  std::vector<Elf64_Phdr> segments_;
};

// The library search path a shared library carries in its dynamic section (DT_RUNPATH, else
// DT_RPATH), read from the file; empty when it has none or is not a 64-bit ELF file. Bounds are
// checked everywhere: the file is untrusted.
std::vector<std::string> elf_search_path(const fs::path& file) {
  ElfSegments elf(file);
  const auto& segments = elf.segments();
  auto file_offset = [&](std::uint64_t address) -> std::optional<std::uint64_t> {
    for (const auto& s : segments)
      if (s.p_type == PT_LOAD && address >= s.p_vaddr && address - s.p_vaddr < s.p_filesz)
        return s.p_offset + (address - s.p_vaddr);
    return std::nullopt;
  };
  std::uint64_t strtab = 0, strsz = 0, runpath = ~0ull, rpath = ~0ull;
  for (const auto& s : segments) {
    if (s.p_type != PT_DYNAMIC) continue;
    const std::uint64_t n = std::min<std::uint64_t>(s.p_filesz / sizeof(Elf64_Dyn), 1 << 16);
    std::vector<Elf64_Dyn> entries(n);
    if (n == 0 || !elf.read_at(s.p_offset, entries.data(), n * sizeof(Elf64_Dyn))) return {};
    for (const auto& d : entries) {
      if (d.d_tag == DT_NULL) break;
      if (d.d_tag == DT_STRTAB) strtab = d.d_un.d_ptr;
      if (d.d_tag == DT_STRSZ) strsz = d.d_un.d_val;
      if (d.d_tag == DT_RUNPATH) runpath = d.d_un.d_val;
      if (d.d_tag == DT_RPATH) rpath = d.d_un.d_val;
    }
  }
  const std::uint64_t at = runpath != ~0ull ? runpath : rpath;
  const auto table = file_offset(strtab);
  if (at == ~0ull || !table || at >= strsz || strsz > (1u << 24)) return {};
  std::string text(static_cast<std::size_t>(strsz - at), '\0');
  if (!elf.read_at(*table + at, text.data(), text.size())) return {};
  text.resize(std::strlen(text.c_str()));
  // Empty entries are kept: ld.so searches the current directory for each of them.
  std::vector<std::string> out;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find(':', start), text.size());
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// The names a library's plugin name notes give (plugin.hpp: owner "Assignor", type
// kPluginNameNoteType, the name NUL-terminated), read from its PT_NOTE segments without running
// anything; a note whose name is not NUL-terminated gives "" (malformed). Notes are laid out as
// glibc reads them: the description at the segment's alignment after header and owner.
std::vector<std::string> plugin_name_notes(const fs::path& file) {
  ElfSegments elf(file);
  std::vector<std::string> names;
  for (const auto& s : elf.segments()) {
    if (s.p_type != PT_NOTE || s.p_filesz == 0 || s.p_filesz > (1u << 20)) continue;
    std::vector<char> data(static_cast<std::size_t>(s.p_filesz));
    if (!elf.read_at(s.p_offset, data.data(), data.size())) continue;
    const std::uint64_t align = s.p_align == 8 ? 8 : 4;
    auto align_up = [&](std::uint64_t n) { return (n + align - 1) / align * align; };
    for (std::uint64_t at = 0; data.size() - at >= sizeof(Elf64_Nhdr);) {
      Elf64_Nhdr note{};
      std::memcpy(&note, data.data() + at, sizeof note);
      const std::uint64_t owner_at = at + sizeof note;
      const std::uint64_t desc_at = align_up(owner_at + note.n_namesz);
      const std::uint64_t end = align_up(desc_at + note.n_descsz);
      if (desc_at + note.n_descsz > data.size()) break;  // truncated: nothing further can be trusted
      const std::string_view owner(data.data() + owner_at, note.n_namesz);
      if (note.n_type == kPluginNameNoteType && owner == std::string_view(kPluginNoteOwner, std::strlen(kPluginNoteOwner) + 1)) {
        const char* name = data.data() + desc_at;
        const std::size_t length = ::strnlen(name, note.n_descsz);
        names.emplace_back(length < note.n_descsz ? std::string(name, length) : std::string());
      }
      if (end <= at || end > data.size()) break;
      at = end;
    }
  }
  return names;
}

const char* machine_name(unsigned machine) {
  switch (machine) {
    case EM_386: return "x86 (32-bit)";
    case EM_X86_64: return "x86-64";
    case EM_AARCH64: return "AArch64 (arm64)";
    case EM_ARM: return "ARM (32-bit)";
    case EM_RISCV: return "RISC-V";
    case EM_PPC64: return "PowerPC 64";
    case EM_S390: return "s390";
    default: return nullptr;
  }
}

std::string describe_machine(unsigned machine) {
  const char* name = machine_name(machine);
  return name != nullptr ? name : fmt::format("machine {}", machine);
}

// Why `file` cannot be a shared library for this process, read from its ELF header, or "": a file
// that is too short, not ELF, of the other word size or byte order, built for another machine, or
// not a shared object (an executable, an object file) gets a reason instead of the loader's
// misleading "No such file or directory" or an iostream error.
std::string not_a_loadable_library(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return fmt::format("cannot read it: {}", std::strerror(errno));
  Elf64_Ehdr header{};
  in.read(reinterpret_cast<char*>(&header), sizeof header);
  const auto got = static_cast<std::size_t>(in.gcount());
  if (got < SELFMAG || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0)
    return got == 0 ? "not a shared library: the file is empty" : "not a shared library: it is not an ELF file";
  if (got < sizeof header)
    return fmt::format("not a shared library: the file is truncated ({} bytes, shorter than an ELF header)", got);
#if defined(__x86_64__)
  constexpr unsigned kMachine = EM_X86_64;
#elif defined(__aarch64__)
  constexpr unsigned kMachine = EM_AARCH64;
#else
  constexpr unsigned kMachine = EM_NONE;
#endif
  if (header.e_ident[EI_CLASS] != ELFCLASS64)
    return fmt::format("built for a 32-bit system ({}); this host is 64-bit ({})", describe_machine(header.e_machine),
                       describe_machine(kMachine));
  if (header.e_ident[EI_DATA] != ELFDATA2LSB) return "built for a big-endian system; this host is little-endian";
  if (kMachine != EM_NONE && header.e_machine != kMachine)
    return fmt::format("built for {}; this host runs {}", describe_machine(header.e_machine), describe_machine(kMachine));
  if (header.e_type != ET_DYN)
    return header.e_type == ET_EXEC ? "not a shared library: it is an executable"
                                    : fmt::format("not a shared library (ELF type {})", header.e_type);
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (!ec && (header.e_shoff > size || header.e_phoff > size ||
              header.e_phoff + std::uint64_t{header.e_phnum} * header.e_phentsize > size))
    return fmt::format("not a shared library: the file is truncated ({} bytes; its headers point past the end)", size);
  return {};
}

// Why an entry of a library's search path is unsafe by itself, before any directory is looked at:
// ld.so resolves an empty or relative entry against the current directory of the process, which
// may be anyone's.
std::string unsafe_search_entry(const std::string& entry) {
  if (entry.empty())
    return "its RUNPATH has an empty entry, which the dynamic loader reads as the current directory: a "
           "library planted wherever assignor runs would be loaded; rebuild it without the empty entry "
           "(no leading, trailing or doubled ':')";
  if (entry.front() != '/')
    return fmt::format("its RUNPATH entry '{}' is relative, which the dynamic loader resolves against the current "
                       "directory; use an absolute path or $ORIGIN",
                       entry);
  return {};
}

}  // namespace

struct PluginRegistry::Impl {
  struct Loaded {
    PluginInfo info;
    // Opened on first use (create()); until then the library has only run in the probe's child.
    mutable std::shared_ptr<boost::dll::shared_library> library;
    mutable const PluginDescriptor* descriptor = nullptr;
  };
  std::deque<Loaded> loaded;  // a deque: references handed out stay valid across later loads
  std::vector<PluginInfo> infos;  // mirror of loaded[i].info, for plugins()
  std::vector<RefusedLibrary> refused;
  std::map<std::string, std::string> conflicts;  // plugin name -> "two plugins are named ..."
  // Libraries index_directory() found and has not opened yet, with the names their notes claim.
  struct Pending {
    fs::path path;  // real path
    PluginOrigin origin;
    std::vector<std::string> claims;  // from the file's name notes: one, unless it is malformed
    bool tried = false;               // opened (or refused) since
  };
  std::vector<Pending> pending;
  bool allow_unsafe_permissions = false;
  std::uint64_t load_time_ms = StrategyLimits{}.time_ms;

  const PluginInfo& load(const fs::path& library_path, PluginOrigin origin);
  // load(), but a refusal is a warning and an entry of `refused` (a library of a directory).
  void load_or_skip(const fs::path& path, PluginOrigin origin);
  // The libraries of a (trusted) directory that export the entry point, in name order.
  std::vector<fs::path> plugin_libraries(const fs::path& dir);
  const PluginInfo* find_loaded(const std::string& name) const noexcept;
  // Opens the pending library that claims `name`; when none does, the pending libraries without
  // a claim, in the order they were found, until one carries it. Each is opened at most once.
  void resolve(const std::string& name);

  // Who could change what this process is about to run: the file, its directory, every directory
  // above, and every directory its own library search path (RUNPATH/RPATH) names.
  void check_trusted(const fs::path& real, bool directory, const std::string& where) const {
    std::string reason = unsafe_reason(real, directory);
    if (reason.empty() && !directory) reason = unsafe_reason(real.parent_path(), /*directory=*/true);
    if (reason.empty()) reason = unsafe_ancestor_reason(directory ? real.parent_path() : real.parent_path().parent_path());
    if (reason.empty() && !directory) {
      const std::string origin = real.parent_path().string();
      for (std::string entry : elf_search_path(real)) {
        for (const char* token : {"${ORIGIN}", "$ORIGIN"})
          for (auto at = entry.find(token); at != std::string::npos; at = entry.find(token))
            entry.replace(at, std::strlen(token), origin);
        if (std::string why = unsafe_search_entry(entry); !why.empty()) {
          reason = std::move(why);
          break;
        }
        if (entry.find('$') != std::string::npos) continue;  // $LIB, $PLATFORM: system directories
        std::error_code ec;
        fs::path dir = fs::weakly_canonical(fs::path(entry), ec);
        while (!dir.empty() && !fs::exists(dir, ec) && dir != dir.root_path()) dir = dir.parent_path();
        // The directory searched (or, when it does not exist yet, the one it would be created in)
        // must be writable by nobody else, sticky bit or not: the sticky bit stops others from
        // deleting or renaming what is there, not from creating a library of their own. The
        // directories above it only must not let others replace it.
        std::string why = unsafe_reason(dir, /*directory=*/true);
        if (why.empty() && dir != dir.root_path()) why = unsafe_ancestor_reason(dir.parent_path());
        if (!why.empty()) {
          reason = fmt::format("it loads its own dependencies from {} (its RUNPATH): {}", entry, why);
          break;
        }
      }
    }
    if (reason.empty()) return;
    if (allow_unsafe_permissions) {
      log().warn("{}: loading anyway (plugins.allow_unsafe_permissions): {}", where, reason);
      return;
    }
    throw PluginError(fmt::format("{}: refused: {}; or set 'plugins: {{allow_unsafe_permissions: true}}' in the "
                                  "config to load it anyway",
                                  where, reason));
  }
};

void PluginRegistry::set_allow_unsafe_permissions(bool allow) noexcept { impl_->allow_unsafe_permissions = allow; }

PluginRegistry::PluginRegistry() : impl_(std::make_unique<Impl>()) {}
PluginRegistry::~PluginRegistry() = default;

namespace {

// ---- probing a library in a child process ---------------------------------------------------

// How a library exports its entry point: a function (API 3 on), or, as plugins of API 2 and
// earlier did, a Boost.DLL alias (a variable holding the function's address). Told apart by the ELF
// symbol type the dynamic loader has for the exported name: calling a variable would run data.
enum class EntryKind { function, boost_alias, other };

EntryKind entry_kind(const void* address) {
  Dl_info info{};
  void* entry = nullptr;
  if (::dladdr1(address, &info, &entry, RTLD_DL_SYMENT) == 0 || entry == nullptr || info.dli_sname == nullptr ||
      std::strcmp(info.dli_sname, kPluginEntryPoint) != 0)
    return EntryKind::other;
  const auto* symbol = static_cast<const Elf64_Sym*>(entry);
  switch (ELF64_ST_TYPE(symbol->st_info)) {
    case STT_FUNC: return EntryKind::function;
    case STT_OBJECT: return EntryKind::boost_alias;
    default: return EntryKind::other;
  }
}

// A plugin of another API version, refused by number with the way to rebuild it.
std::string api_version_mismatch(const std::string& where, std::uint32_t version) {
  if (version < kPluginApiVersion)
    return fmt::format("{}: API version {}, this host supports {}: the plugin was built against an older Assignor "
                       "SDK; rebuild it against this one (find_package(Assignor {}) in its CMakeLists.txt, then a "
                       "fresh build directory)",
                       where, version, kPluginApiVersion, kPluginApiVersion);
  return fmt::format("{}: API version {}, this host supports {}: the plugin was built against a newer Assignor SDK; "
                     "run it with an assignor that supports API {}, or rebuild it against this one "
                     "(find_package(Assignor {}))",
                     where, version, kPluginApiVersion, version, kPluginApiVersion);
}

// Opens `where` (already checked: trusted, with the entry point) in this process and checks its
// descriptor; throws PluginError naming the file and the reason.
std::pair<std::shared_ptr<boost::dll::shared_library>, const PluginDescriptor*> open_plugin(const std::string& where) {
  auto library = std::make_shared<boost::dll::shared_library>();
  boost::dll::fs::error_code load_error;
  library->load(boost::dll::fs::path(where), boost::dll::load_mode::rtld_local | boost::dll::load_mode::rtld_now,
                load_error);
  if (load_error) {
    const char* detail = ::dlerror();
    throw PluginError(fmt::format("{}: cannot load plugin: {}", where, detail != nullptr ? detail : load_error.message()));
  }
  // Never unloaded while the process runs (as LLVM does with its pass plugins): a thread a
  // strategy started may still be running its code when the registry goes away at exit, and
  // unmapping that code under it would crash the host after its result was written.
  (void)::dlopen(where.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  if (!library->has(kPluginEntryPoint))
    throw PluginError(fmt::format("{}: not an Assignor plugin: it does not export '{}'", where, kPluginEntryPoint));
  const EntryKind kind = entry_kind(&library->get<char>(kPluginEntryPoint));
  if (kind == EntryKind::other)
    throw PluginError(fmt::format("{}: not an Assignor plugin: its '{}' is neither a function nor the Boost.DLL alias "
                                  "of API 2 and earlier",
                                  where, kPluginEntryPoint));
  const PluginDescriptor* descriptor = nullptr;
  try {
    descriptor = kind == EntryKind::function ? library->get<PluginEntryPoint>(kPluginEntryPoint)()
                                             : library->get_alias<PluginEntryPoint>(kPluginEntryPoint)();
  } catch (const std::exception& e) {
    throw PluginError(fmt::format("{}: entry point '{}' failed: {}", where, kPluginEntryPoint, e.what()));
  }
  if (descriptor == nullptr)
    throw PluginError(fmt::format("{}: entry point '{}' returned no descriptor", where, kPluginEntryPoint));
  if (descriptor->api_version != kPluginApiVersion) throw PluginError(api_version_mismatch(where, descriptor->api_version));
  if (kind != EntryKind::function)
    throw PluginError(fmt::format("{}: declares API version {} but exports '{}' as a Boost.DLL alias, as plugins of "
                                  "API 2 and earlier did; rebuild it with ASSIGNOR_PLUGIN from this SDK "
                                  "(find_package(Assignor {}))",
                                  where, descriptor->api_version, kPluginEntryPoint, kPluginApiVersion));
  if (descriptor->fingerprint == nullptr || std::strcmp(descriptor->fingerprint, kBuildFingerprint) != 0)
    throw PluginError(fmt::format("{}: built as '{}', this host is '{}'; rebuild the plugin against "
                                  "this SDK with the same compiler",
                                  where, descriptor->fingerprint ? descriptor->fingerprint : "(none)",
                                  kBuildFingerprint));
  if (descriptor->name == nullptr || *descriptor->name == '\0' || descriptor->create == nullptr ||
      descriptor->destroy == nullptr)
    throw PluginError(fmt::format("{}: incomplete descriptor (name, create and destroy are required)", where));
  return {std::move(library), descriptor};
}

bool parse_u32(const std::string& word, std::uint32_t& value) {
  const auto [ptr, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  return ec == std::errc() && ptr == word.data() + word.size() && !word.empty();
}

// The probe's answer, one frame (process/frames.hpp): "plugin API CAPABILITIES N" + name, version
// and description, each ended by a NUL (they are C strings: none can hold one); or "fail plugin N" +
// the reason the library was refused.
PluginInfo probe(const std::string& where, std::uint64_t time_ms) {
  const process::ChildOutcome child = process::run_in_child(
      [&](int fd) {
        std::string answer;
        try {
          const auto [library, d] = open_plugin(where);
          std::string texts;
          for (const char* text : {d->name, d->version, d->description}) {
            texts.append(text != nullptr ? text : "");
            texts.push_back('\0');
          }
          answer = process::encode_frame(
              {"plugin", std::to_string(d->api_version), std::to_string(d->capabilities)}, texts);
        } catch (const std::exception& e) {
          answer = process::failure_frame(ErrorKind::plugin, e.what());
        }
        ::_exit(process::write_all(fd, answer) ? 0 : 1);  // no destructor of the library's runs here
      },
      {time_ms, 1u << 20});
  switch (child.end) {
    case process::ChildEnd::not_started:
      throw PluginError(fmt::format("{}: cannot load plugin: {}", where, child.error));
    case process::ChildEnd::timed_out:
      throw PluginError(fmt::format("{}: did not finish loading within {} (limits.time_ms): its initialisers hang",
                                    where, process::describe_duration(time_ms)));
    case process::ChildEnd::malformed:
      throw PluginError(fmt::format("{}: cannot load plugin: its loader's answer is malformed ({})", where, child.error));
    case process::ChildEnd::signaled:
      throw PluginError(fmt::format("{}: crashed with {} while loading (in its initialisers)", where,
                                    process::describe_signal(child.status)));
    case process::ChildEnd::exited:
      throw PluginError(fmt::format("{}: ended its loader with exit status {} while loading (in its initialisers)",
                                    where, child.status));
    case process::ChildEnd::answered:
      break;
  }
  const process::Frame& frame = *child.frame;
  if (frame.kind() == "fail" && frame.words.size() == 2 && frame.words[1] == error_kind_name(ErrorKind::plugin))
    throw PluginError(frame.payload);
  PluginInfo info;
  std::vector<std::string> texts;
  for (std::size_t at = 0; at < frame.payload.size();) {
    const std::size_t end = frame.payload.find('\0', at);
    if (end == std::string::npos) break;
    texts.push_back(frame.payload.substr(at, end - at));
    at = end + 1;
  }
  if (frame.kind() != "plugin" || frame.words.size() != 3 || texts.size() != 3 || frame.payload.back() != '\0' ||
      !parse_u32(frame.words[1], info.api_version) || !parse_u32(frame.words[2], info.capabilities))
    throw PluginError(fmt::format("{}: cannot load plugin: its loader's answer is malformed", where));
  info.name = std::move(texts[0]);
  info.version = std::move(texts[1]);
  info.description = std::move(texts[2]);
  return info;
}

}  // namespace

void PluginRegistry::set_load_time_limit(std::uint64_t ms) noexcept { impl_->load_time_ms = ms; }

namespace {

// Why a library's name notes do not name the plugin its descriptor names, or "": exactly one note,
// and the descriptor's name in it (plugin.hpp; ASSIGNOR_PLUGIN writes both from one literal).
std::string name_note_problem(const std::vector<std::string>& notes, const std::string& name) {
  if (notes.empty())
    return fmt::format("it carries no plugin name note (section {}), which ASSIGNOR_PLUGIN writes: rebuild it "
                       "against this SDK (find_package(Assignor {}))",
                       kPluginNoteSection, kPluginApiVersion);
  if (notes.size() > 1)
    return fmt::format("it carries {} plugin name notes ('{}'): one library is one plugin", notes.size(),
                       fmt::join(notes, "', '"));
  if (notes.front().empty()) return "its plugin name note is malformed (the name is not NUL-terminated)";
  if (notes.front() != name)
    return fmt::format("its name note says '{}' but its descriptor names it '{}' (ASSIGNOR_PLUGIN writes both "
                       "from one name: rebuild it)",
                       printable(notes.front()), printable(name));
  return {};
}

}  // namespace

const PluginInfo& PluginRegistry::load(const fs::path& library_path, PluginOrigin origin) {
  return impl_->load(library_path, origin);
}

const PluginInfo& PluginRegistry::Impl::load(const fs::path& library_path, PluginOrigin origin) {
  std::error_code ec;
  fs::path real = fs::canonical(library_path, ec);
  if (ec) throw PluginError(fmt::format("{}: cannot load plugin: {}", library_path.string(), ec.message()));
  const std::string where = real.string();
  if (real != fs::absolute(library_path, ec).lexically_normal())
    log().debug("{}: resolved to {}", library_path.string(), where);
  for (const auto& other : loaded)
    if (other.info.path == real) return other.info;  // the same file found twice (e.g. symlink)
  for (auto& p : pending)
    if (p.path == real) p.tried = true;  // named again (--plugin-path): opened now, never twice

  // Before any byte of the file runs: who could have written it (or what it loads), and is it a
  // plugin at all? Only a library whose symbol table (read from the file, without dlopen) carries
  // the entry point is opened, so a library that is not a plugin never runs its initialisers.
  if (!fs::is_regular_file(real, ec))
    throw PluginError(fmt::format("{}: cannot load plugin: not a regular file", where));
  check_trusted(real, /*directory=*/false, where);
  if (const std::string why = not_a_loadable_library(real); !why.empty())
    throw PluginError(fmt::format("{}: cannot load plugin: {}", where, why));
  try {
    boost::dll::library_info file(boost::dll::fs::path(where), /*throw_if_not_native=*/true);
    const auto symbols = file.symbols();
    if (std::find(symbols.begin(), symbols.end(), kPluginEntryPoint) == symbols.end())
      throw PluginError(fmt::format("{}: not an Assignor plugin: it does not export '{}'", where,
                                    kPluginEntryPoint));
  } catch (const PluginError&) {
    throw;
  } catch (const std::exception&) {
    throw PluginError(fmt::format("{}: cannot load plugin: not a shared library: its symbol table cannot be read "
                                  "(truncated or damaged)",
                                  where));
  }

  // Opened in a child first: its initialisers run there, under the time limit. Its version is
  // checked there, before its name note: a plugin of another API version is refused by number.
  PluginInfo info = probe(where, load_time_ms);
  if (const std::string why = name_note_problem(plugin_name_notes(real), info.name); !why.empty())
    throw PluginError(fmt::format("{}: {}", where, why));
  info.origin = origin;
  info.path = real;
  auto conflict = [&](const fs::path& other) {
    std::string message = fmt::format("two plugins are named '{}': {} and {}", info.name, other.string(), where);
    conflicts.emplace(info.name, message);  // asking for that name is an error from now on
    return PluginError(std::move(message));
  };
  for (const auto& other : loaded)
    if (other.info.name == info.name) throw conflict(other.info.path);
  for (const auto& other : pending)  // one not opened yet (an opened one is loaded, or was refused)
    if (!other.tried && other.path != real && other.claims.size() == 1 && other.claims.front() == info.name)
      throw conflict(other.path);
  log().debug("found plugin '{}' {} in {}", info.name, info.version, where);
  loaded.push_back({info, nullptr, nullptr});
  infos.push_back(info);
  return loaded.back().info;
}

void PluginRegistry::Impl::load_or_skip(const fs::path& path, PluginOrigin origin) {
  try {
    load(path, origin);
  } catch (const PluginError& e) {
    log().warn("{} (skipped: the other plugins are unaffected)", printable(e.what()));
    std::error_code ec;
    refused.push_back({fs::canonical(path, ec), e.what()});
  }
}

std::vector<fs::path> PluginRegistry::Impl::plugin_libraries(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw PluginError(fmt::format("{}: plugin directory does not exist", dir.string()));
  const fs::path real_dir = fs::canonical(dir, ec);
  if (!ec) check_trusted(real_dir, /*directory=*/true, real_dir.string());
  // One entry that cannot be read (a dangling symlink, a file without read permission) is skipped
  // with a warning naming it; it never costs the other plugins of the directory.
  auto skip = [&](const fs::path& path, const std::string& why, bool listed) {
    const std::string message = fmt::format("{}: {}", printable(path.string()), why);
    log().warn("{} (skipped: the other plugins are unaffected)", message);
    if (listed) refused.push_back({path, message});
  };
  std::vector<fs::path> candidates;
  fs::directory_iterator it(dir, ec);
  if (ec) throw PluginError(fmt::format("{}: cannot list plugin directory: {}", dir.string(), ec.message()));
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) throw PluginError(fmt::format("{}: cannot list plugin directory: {}", dir.string(), ec.message()));
    const fs::path path = it->path();
    if (!looks_like_library(path)) continue;
    std::error_code entry_error;
    const fs::file_status status = it->status(entry_error);  // follows symlinks
    if (entry_error) {
      const bool dangling = it->is_symlink(ec) && !fs::exists(path, ec);
      ec.clear();
      skip(path, dangling ? fmt::format("cannot read it: a symlink to {}, which does not exist",
                                        fs::read_symlink(path, ec).string())
                          : fmt::format("cannot read it: {}", entry_error.message()),
           /*listed=*/false);
      continue;
    }
    if (fs::is_regular_file(status)) candidates.push_back(path);
  }
  std::sort(candidates.begin(), candidates.end());
  std::vector<fs::path> plugins;
  for (const auto& path : candidates) {
    // Only libraries that carry the entry point are plugins; other libraries (a plugin's own
    // dependencies) are skipped quietly, but a file named like a library that no loader could open
    // (not ELF, truncated, another machine's) is said. A plugin that fails a check is skipped with
    // a warning: the others, and the strategies they carry, stay usable, and asking for a strategy
    // that is not there names what was refused.
    if (const std::string why = not_a_loadable_library(path); !why.empty()) {
      skip(path, why, /*listed=*/true);
      continue;
    }
    bool is_plugin = false;
    try {
      boost::dll::library_info info(boost::dll::fs::path(path.string()), /*throw_if_not_native=*/true);
      const auto symbols = info.symbols();
      is_plugin = std::find(symbols.begin(), symbols.end(), kPluginEntryPoint) != symbols.end();
    } catch (const std::exception&) {
      skip(path, "not a shared library: its symbol table cannot be read (truncated or damaged)", /*listed=*/true);
      continue;
    }
    if (!is_plugin) {
      log().debug("{}: skipped, not an Assignor plugin", path.string());
      continue;
    }
    plugins.push_back(path);
  }
  return plugins;
}

void PluginRegistry::load_directory(const fs::path& dir, PluginOrigin origin) {
  for (const auto& path : impl_->plugin_libraries(dir)) impl_->load_or_skip(path, origin);
}

void PluginRegistry::index_directory(const fs::path& dir, PluginOrigin origin) {
  for (const auto& path : impl_->plugin_libraries(dir)) {
    std::error_code ec;
    const fs::path real = fs::canonical(path, ec);
    if (ec) {
      impl_->load_or_skip(path, origin);  // says why it cannot be read
      continue;
    }
    auto same_file = [&](const auto& other) { return other.path == real; };
    if (std::any_of(impl_->pending.begin(), impl_->pending.end(), same_file) ||
        std::any_of(impl_->loaded.begin(), impl_->loaded.end(), [&](const auto& l) { return l.info.path == real; }))
      continue;  // the same file found twice (e.g. a symlink)
    // Who could have written it is known without opening it (a few stat calls): a library the
    // host would refuse is refused now, so that its name is never offered as loadable and a
    // config naming it hears the reason (exit 3), not 'no strategy named'.
    try {
      impl_->check_trusted(real, /*directory=*/false, real.string());
    } catch (const PluginError& e) {
      log().warn("{} (skipped: the other plugins are unaffected)", printable(e.what()));
      impl_->refused.push_back({real, e.what()});
      continue;
    }
    Impl::Pending candidate{real, origin, plugin_name_notes(real), false};
    // A second library claiming a name already found is refused as two loaded ones would be.
    if (candidate.claims.size() == 1 && !candidate.claims.front().empty()) {
      const std::string& name = candidate.claims.front();
      std::optional<fs::path> other;
      for (const auto& l : impl_->loaded)
        if (l.info.name == name) other = l.info.path;
      for (const auto& p : impl_->pending)
        if (!p.tried && p.claims.size() == 1 && p.claims.front() == name) other = p.path;
      if (other) {
        std::string message = fmt::format("two plugins are named '{}': {} and {}", name, other->string(), real.string());
        log().warn("{} (skipped: the other plugins are unaffected)", printable(message));
        impl_->conflicts.emplace(name, message);
        impl_->refused.push_back({real, std::move(message)});
        continue;
      }
    }
    impl_->pending.push_back(std::move(candidate));
  }
}

const PluginInfo* PluginRegistry::Impl::find_loaded(const std::string& name) const noexcept {
  for (const auto& p : loaded)
    if (p.info.name == name) return &p.info;
  return nullptr;
}

void PluginRegistry::Impl::resolve(const std::string& name) {
  if (conflicts.count(name) != 0 || find_loaded(name) != nullptr) return;
  for (auto& p : pending)
    if (!p.tried && p.claims.size() == 1 && p.claims.front() == name) {
      p.tried = true;
      load_or_skip(p.path, p.origin);
    }
  if (find_loaded(name) != nullptr) return;
  // Nothing claims it: the libraries without exactly one claim (built without ASSIGNOR_PLUGIN,
  // or for API 2 and earlier, which had no note) may still carry it, or say why they cannot.
  for (auto& p : pending)
    if (!p.tried && (p.claims.size() != 1 || p.claims.front().empty())) {
      p.tried = true;
      load_or_skip(p.path, p.origin);
      if (find_loaded(name) != nullptr) return;
    }
}

const std::vector<PluginInfo>& PluginRegistry::plugins() const noexcept { return impl_->infos; }

const std::vector<RefusedLibrary>& PluginRegistry::refused() const noexcept { return impl_->refused; }

std::vector<std::string> PluginRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& p : impl_->loaded) out.push_back(p.info.name);
  for (const auto& p : impl_->pending)
    if (!p.tried && p.claims.size() == 1 && !p.claims.front().empty() &&
        std::find(out.begin(), out.end(), p.claims.front()) == out.end())
      out.push_back(p.claims.front());
  return out;
}

bool PluginRegistry::knows(const std::string& name) const {
  if (impl_->conflicts.count(name) != 0) return false;
  const std::vector<std::string> known = names();
  return std::find(known.begin(), known.end(), name) != known.end();
}

const PluginInfo* PluginRegistry::find(const std::string& name) const noexcept {
  try {
    impl_->resolve(name);
  } catch (const std::exception& e) {  // out of memory, an unlistable path: as if it were not there
    log().warn("looking for plugin '{}': {}", printable(name), e.what());
  }
  return impl_->find_loaded(name);
}

const PluginInfo& PluginRegistry::require(const std::string& name) const {
  if (const auto conflict = impl_->conflicts.find(name); conflict != impl_->conflicts.end())
    throw PluginError(conflict->second);
  if (const PluginInfo* info = find(name)) return *info;
  // Not there: every library not opened yet is opened now, so that the message names every
  // plugin there is and every library refused, as after load_directory().
  for (auto& p : impl_->pending)
    if (!p.tried) {
      p.tried = true;
      impl_->load_or_skip(p.path, p.origin);
    }
  if (const auto conflict = impl_->conflicts.find(name); conflict != impl_->conflicts.end())
    throw PluginError(conflict->second);  // found while looking
  const std::vector<std::string> known = names();
  std::string message = fmt::format("no strategy named '{}'", name);
  const std::string suggestion = nearest(name, known);
  if (!suggestion.empty()) message += fmt::format("; did you mean '{}'?", suggestion);
  message += fmt::format(" (plugins: {})", known.empty() ? std::string("none") : fmt::format("{}", fmt::join(known, ", ")));
  if (!impl_->refused.empty()) {
    message += fmt::format("; {} librar{} refused, which may hold it:", impl_->refused.size(),
                           impl_->refused.size() == 1 ? "y was" : "ies were");
    for (const auto& r : impl_->refused) message += " [" + r.reason + "]";
  }
  throw PluginError(message);
}

StrategyHandle PluginRegistry::create(const std::string& name, const StrategyParams& params) const {
  const PluginInfo& info = require(name);
  const Impl::Loaded* plugin = nullptr;
  for (const auto& p : impl_->loaded)
    if (p.info.path == info.path) plugin = &p;
  if (!plugin->library) {  // first use in this process: open it for real (the probe's child already did)
    auto [library, descriptor] = open_plugin(plugin->info.path.string());
    if (descriptor->name != plugin->info.name)
      throw PluginError(fmt::format("{}: names itself '{}' now, '{}' when it was found", plugin->info.path.string(),
                                    descriptor->name, plugin->info.name));
    plugin->library = std::move(library);
    plugin->descriptor = descriptor;
  }
  Strategy* raw = nullptr;
  try {
    raw = plugin->descriptor->create(params);
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("strategies.{}: {}", name, e.what()));
  } catch (const std::exception& e) {
    throw StrategyError(fmt::format("plugin '{}' ({}) failed to create its strategy: {}", name,
                                    plugin->info.path.string(), e.what()));
  } catch (...) {
    throw StrategyError(fmt::format("plugin '{}' ({}) failed to create its strategy: unknown exception",
                                    name, plugin->info.path.string()));
  }
  if (raw == nullptr)
    throw StrategyError(fmt::format("plugin '{}' ({}) returned no strategy", name,
                                    plugin->info.path.string()));
  // The deleter owns a reference to the library: the object can never outlive its code.
  auto library = plugin->library;
  auto destroy = plugin->descriptor->destroy;
  return StrategyHandle(raw, [library, destroy](Strategy* s) { destroy(s); });
}

fs::path builtin_plugin_dir() {
  // The build tree is laid out like the installed one (CMakeLists.txt): the bundled plugins are
  // <bin>/../lib/assignor/plugins in both.
  const fs::path exe = boost::dll::program_location().string();
  return (exe.parent_path() / ASSIGNOR_PLUGIN_DIR_FROM_BIN).lexically_normal();
}

}  // namespace assignor::host
