#include "elf_file.hpp"

#include <fmt/format.h>

#include <elf.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <string_view>
#include <system_error>

#include "assignor/plugin.hpp"

namespace assignor::host::loading {

namespace fs = std::filesystem;

namespace {

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

}  // namespace

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
      if (note.n_type == kPluginNameNoteType &&
          owner == std::string_view(kPluginNoteOwner, std::strlen(kPluginNoteOwner) + 1)) {
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
    return fmt::format("built for {}; this host runs {}", describe_machine(header.e_machine),
                       describe_machine(kMachine));
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

}  // namespace assignor::host::loading
