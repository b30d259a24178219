#include "trust.hpp"

#include <fmt/format.h>

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <system_error>

#include "elf_file.hpp"

namespace assignor::host::loading {

namespace fs = std::filesystem;

namespace {

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
    return fmt::format(
        "the {} {} is writable by {} (mode {:04o}), so another user could put their code "
        "in this process; fix it with 'chmod go-w {}'",
        what, path.string(), group && others ? "its group and others" : (group ? "its group" : "others"), mode,
        path.string());
  if (st.st_uid != 0 && st.st_uid != ::geteuid())
    return fmt::format(
        "the {} {} is owned by user '{}' (uid {}), neither root nor the user running assignor "
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
        return fmt::format(
            "the directory {} is writable by {} (mode {:04o}) without the sticky bit, so another "
            "user could replace what is below it; fix it with 'chmod go-w {}'",
            p.string(), (st.st_mode & S_IWOTH) != 0 ? "others" : "its group", static_cast<unsigned>(st.st_mode & 07777),
            p.string());
      if (st.st_uid != 0 && st.st_uid != ::geteuid())
        return fmt::format(
            "the directory {} is owned by user '{}' (uid {}), neither root nor the user running "
            "assignor",
            p.string(), user_name(st.st_uid), st.st_uid);
    }
    if (p == p.root_path()) break;
  }
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
    return fmt::format(
        "its RUNPATH entry '{}' is relative, which the dynamic loader resolves against the current "
        "directory; use an absolute path or $ORIGIN",
        entry);
  return {};
}

}  // namespace

std::string untrusted_reason(const fs::path& real, bool directory) {
  std::string reason = unsafe_reason(real, directory);
  if (reason.empty() && !directory) reason = unsafe_reason(real.parent_path(), /*directory=*/true);
  if (reason.empty())
    reason = unsafe_ancestor_reason(directory ? real.parent_path() : real.parent_path().parent_path());
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
  return reason;
}

}  // namespace assignor::host::loading
