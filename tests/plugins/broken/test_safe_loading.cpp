// Safe loading: a plugin file or directory that group or others can write, or that another user
// (not root, not us) owns, is refused with a message saying why and how to fix it, unless loading
// it anyway is allowed explicitly; a file without the entry point is never opened; symlinks are
// resolved and the real path is what is checked and reported.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "assignor/host/plugins/plugin_registry.hpp"
#include "broken_test.hpp"

namespace {

namespace fs = std::filesystem;
using namespace assignor_test::broken;

class SafeLoading : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / fmt::format("assignor-safe-{}-{}", ::getpid(), info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "plugins");
    fs::permissions(dir_, fs::perms(0755));
    fs::permissions(dir_ / "plugins", fs::perms(0755));
    plugin_ = dir_ / "plugins" / "trivial.so";
    fs::copy_file(TEST_PLUGIN_TRIVIAL_VALID, plugin_);
    fs::permissions(plugin_, fs::perms(0755));
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  fs::path dir_;
  fs::path plugin_;
};

TEST_F(SafeLoading, AFileWithSafePermissionsLoads) {
  PluginRegistry registry;
  EXPECT_EQ(registry.load(plugin_).name, "test_trivial_valid");
  PluginRegistry again;
  again.load_directory(plugin_.parent_path());
  EXPECT_EQ(again.plugins().size(), 1u);
}

TEST_F(SafeLoading, GroupWritableFileIsRefusedSayingWhyAndHow) {
  fs::permissions(plugin_, fs::perms(0775));
  PluginRegistry registry;
  const std::string msg = message_of<PluginError>([&] { registry.load(plugin_); });
  EXPECT_THAT(msg, HasSubstr(fs::canonical(plugin_).string() + ": refused: the file"));
  EXPECT_THAT(msg, HasSubstr("is writable by its group (mode 0775)"));
  EXPECT_THAT(msg, HasSubstr("chmod go-w"));
  EXPECT_THAT(msg, HasSubstr("allow_unsafe_permissions: true"));
  EXPECT_THAT(registry.plugins(), IsEmpty());
  // In a plugin directory the file is skipped (never opened), with the same reason.
  registry.load_directory(plugin_.parent_path());
  EXPECT_THAT(registry.plugins(), IsEmpty());
  ASSERT_EQ(registry.refused().size(), 1u);
  EXPECT_THAT(registry.refused()[0].reason, HasSubstr("is writable by its group (mode 0775)"));
}

TEST_F(SafeLoading, WorldWritableFileIsRefused) {
  fs::permissions(plugin_, fs::perms(0757));
  PluginRegistry registry;
  EXPECT_THAT(message_of<PluginError>([&] { registry.load(plugin_); }), HasSubstr("writable by others (mode 0757)"));
  fs::permissions(plugin_, fs::perms(0777));
  EXPECT_THAT(message_of<PluginError>([&] { registry.load(plugin_); }),
              HasSubstr("writable by its group and others (mode 0777)"));
}

TEST_F(SafeLoading, WritableDirectoryIsRefused) {
  fs::permissions(plugin_.parent_path(), fs::perms(01777));  // even with the sticky bit, like /tmp
  PluginRegistry registry;
  const std::string dir = fs::canonical(plugin_.parent_path()).string();
  EXPECT_THAT(message_of<PluginError>([&] { registry.load(plugin_); }),
              AllOf(HasSubstr("the directory " + dir + " is writable by its group and others (mode 1777)"),
                    HasSubstr("chmod go-w " + dir)));
  EXPECT_THAT(message_of<PluginError>([&] { registry.load_directory(plugin_.parent_path()); }),
              HasSubstr(dir + ": refused: the directory"));
  EXPECT_THAT(registry.plugins(), IsEmpty());
}

TEST_F(SafeLoading, AllowingItExplicitlyLoadsWithAWarning) {
  fs::permissions(plugin_, fs::perms(0777));
  fs::permissions(plugin_.parent_path(), fs::perms(0777));
  PluginRegistry registry;
  registry.set_allow_unsafe_permissions(true);
  EXPECT_EQ(registry.load(plugin_).name, "test_trivial_valid");
  PluginRegistry dir_registry;
  dir_registry.set_allow_unsafe_permissions(true);
  dir_registry.load_directory(plugin_.parent_path());
  EXPECT_EQ(dir_registry.plugins().size(), 1u);
}

TEST_F(SafeLoading, FileOwnedByAnotherUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give the file to another user";
  ASSERT_EQ(::chown(plugin_.c_str(), 4242, 4242), 0);
  PluginRegistry registry;
  EXPECT_THAT(
      message_of<PluginError>([&] { registry.load(plugin_); }),
      AllOf(HasSubstr("is owned by user"), HasSubstr("(uid 4242), neither root nor the user running assignor")));
  ASSERT_EQ(::chown(plugin_.c_str(), 0, 0), 0);  // root's own file: fine
  EXPECT_EQ(registry.load(plugin_).name, "test_trivial_valid");
}

TEST_F(SafeLoading, DirectoryOwnedByAnotherUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give the directory to another user";
  ASSERT_EQ(::chown(plugin_.parent_path().c_str(), 4242, 4242), 0);
  PluginRegistry registry;
  EXPECT_THAT(message_of<PluginError>([&] { registry.load_directory(plugin_.parent_path()); }),
              AllOf(HasSubstr("the directory"), HasSubstr("(uid 4242)")));
}

TEST_F(SafeLoading, SymlinksAreResolvedAndTheRealPathIsCheckedAndReported) {
  fs::create_directories(dir_ / "links");
  fs::permissions(dir_ / "links", fs::perms(0755));
  const fs::path link = dir_ / "links" / "via-link.so";
  fs::create_symlink(plugin_, link);
  PluginRegistry registry;
  EXPECT_EQ(registry.load(link).path, fs::canonical(plugin_));  // reported by its real path
  // The target's permissions count, not the link's (a symlink's own mode is always 0777).
  fs::permissions(plugin_, fs::perms(0775));
  PluginRegistry other;
  const std::string msg = message_of<PluginError>([&] { other.load(link); });
  EXPECT_THAT(msg, HasSubstr(fs::canonical(plugin_).string() + ": refused"));
  EXPECT_THAT(msg, Not(HasSubstr("via-link")));
}

TEST(SafeLoadingEntryPoint, ALibraryWithoutTheEntryPointIsNeverOpened) {
  // Its static initialiser calls abort(): this test process would die if load() opened it.
  PluginRegistry registry;
  EXPECT_THAT(message_of<PluginError>([&] { registry.load(TEST_PLUGIN_NO_ENTRY_ABORTS); }),
              HasSubstr("not an Assignor plugin: it does not export 'assignor_plugin_entry'"));
  EXPECT_NO_THROW(registry.load_directory(dir_of(TEST_PLUGIN_NO_ENTRY_ABORTS)));
  EXPECT_THAT(registry.plugins(), IsEmpty());
}

TEST_F(SafeLoading, AFileThatIsNotALibraryIsRefusedBeforeOpening) {
  const fs::path text = dir_ / "plugins" / "text.so";
  std::ofstream(text) << "#!/bin/sh\necho not a library\n";
  fs::permissions(text, fs::perms(0755));
  PluginRegistry registry;
  EXPECT_THAT(message_of<PluginError>([&] { registry.load(text); }),
              AllOf(HasSubstr("cannot load plugin: not a shared library"), HasSubstr(fs::canonical(text).string())));
  EXPECT_THAT(message_of<PluginError>([&] { registry.load(dir_ / "plugins"); }), HasSubstr("not a regular file"));
}

TEST_F(SafeLoading, FilesNoLoaderCouldOpenAreRefusedWithWhatTheyAre) {
  auto write = [&](const std::string& name, const std::string& bytes) {
    const fs::path path = dir_ / "plugins" / name;
    std::ofstream(path, std::ios::binary) << bytes;
    fs::permissions(path, fs::perms(0755));
    return path;
  };
  // Patches a copy of a real plugin: its header says another machine, or it is cut short.
  auto patched = [&](const std::string& name, std::size_t size, std::size_t at, std::string bytes) {
    std::ifstream in(TEST_PLUGIN_TRIVIAL_VALID, std::ios::binary);
    std::string image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    image.resize(std::min(size, image.size()));
    image.replace(at, bytes.size(), bytes);
    return write(name, image);
  };
  PluginRegistry registry;
  EXPECT_THAT(message_of<PluginError>([&] { registry.load(write("text.so", "plain text, no ELF header")); }),
              HasSubstr("cannot load plugin: not a shared library: it is not an ELF file"));
  EXPECT_THAT(message_of<PluginError>([&] { registry.load(write("empty.so", "")); }), HasSubstr("the file is empty"));
  EXPECT_THAT(message_of<PluginError>([&] { registry.load(patched("cut.so", 40, 0, "")); }),
              HasSubstr("the file is truncated (40 bytes, shorter than an ELF header)"));
  EXPECT_THAT(message_of<PluginError>([&] { registry.load(patched("half.so", 4096, 0, "")); }),
              HasSubstr("the file is truncated"));
  // e_machine is the 16-bit field at offset 18: 183 is AArch64.
  EXPECT_THAT(
      message_of<PluginError>([&] { registry.load(patched("arm.so", 1u << 30, 18, std::string("\xb7\x00", 2))); }),
      HasSubstr("built for AArch64 (arm64); this host runs x86-64"));
  EXPECT_THAT(message_of<PluginError>([&] { registry.load(patched("x32.so", 1u << 30, 4, std::string("\x01", 1))); }),
              HasSubstr("built for a 32-bit system"));
  // In a directory each is skipped with a warning and listed (the good plugin still loads).
  PluginRegistry in_dir;
  in_dir.load_directory(dir_ / "plugins");
  EXPECT_EQ(in_dir.plugins().size(), 1u);
  EXPECT_EQ(in_dir.refused().size(), 6u);
  for (const auto& r : in_dir.refused()) EXPECT_THAT(r.reason, HasSubstr(r.path.filename().string() + ": "));
}

TEST_F(SafeLoading, AnEntryThatCannotBeReadCostsOnlyItself) {
  // A dangling symlink used to fail the whole directory ("cannot list plugin directory").
  fs::create_symlink(dir_ / "gone.so", dir_ / "plugins" / "dangling.so");
  PluginRegistry registry;
  EXPECT_NO_THROW(registry.load_directory(dir_ / "plugins"));
  ASSERT_EQ(registry.plugins().size(), 1u);
  EXPECT_EQ(registry.plugins()[0].name, "test_trivial_valid");
}

// ---- what a plugin pulls in, and where it sits ----

TEST_F(SafeLoading, AnEmptyOrRelativeRunpathEntryIsRefused) {
  // ld.so reads both against the current directory: a library planted wherever assignor runs
  // (a shared /tmp, a checkout of someone else's) would run in the host.
  PluginRegistry registry;
  EXPECT_THAT(message_of<PluginError>([&] { registry.load(TEST_PLUGIN_RUNPATH_EMPTY); }),
              AllOf(HasSubstr("refused: its RUNPATH has an empty entry, which the dynamic loader reads as the "
                              "current directory"),
                    HasSubstr("allow_unsafe_permissions")));
  EXPECT_THAT(message_of<PluginError>([&] { registry.load(TEST_PLUGIN_RUNPATH_RELATIVE); }),
              HasSubstr("refused: its RUNPATH entry 'deps' is relative"));
  registry.load_directory(dir_of(TEST_PLUGIN_RUNPATH_EMPTY));
  EXPECT_THAT(registry.plugins(), IsEmpty());
  EXPECT_EQ(registry.refused().size(), 2u);
}

TEST_F(SafeLoading, AStickyDependencyDirectoryOthersCanWriteIsRefusedToo) {
  // /tmp-like: the sticky bit stops others deleting what is there, not planting a library of theirs.
  const fs::path plugin = dir_ / "plugins" / "runpath.so";
  fs::copy_file(TEST_PLUGIN_RUNPATH_DEPS, plugin);
  fs::permissions(plugin, fs::perms(0755));
  fs::create_directory(dir_ / "plugins" / "deps");
  fs::permissions(dir_ / "plugins" / "deps", fs::perms(01777));
  PluginRegistry registry;
  EXPECT_THAT(message_of<PluginError>([&] { registry.load(plugin); }),
              AllOf(HasSubstr("it loads its own dependencies from " + (dir_ / "plugins" / "deps").string()),
                    HasSubstr("writable by its group and others (mode 1777)")));
}

TEST_F(SafeLoading, ADependencyDirectoryOthersCanWriteIsRefused) {
  // The plugin's RUNPATH names $ORIGIN/deps: a library planted there would run in this process.
  const fs::path plugin = dir_ / "plugins" / "runpath.so";
  fs::copy_file(TEST_PLUGIN_RUNPATH_DEPS, plugin);
  fs::permissions(plugin, fs::perms(0755));
  PluginRegistry missing;  // no deps/ yet, and only we can create it: fine
  EXPECT_NO_THROW(missing.load(plugin));
  fs::create_directory(dir_ / "plugins" / "deps");
  fs::permissions(dir_ / "plugins" / "deps", fs::perms(0777));
  PluginRegistry registry;
  EXPECT_THAT(
      message_of<PluginError>([&] { registry.load(plugin); }),
      AllOf(HasSubstr("it loads its own dependencies from " + (dir_ / "plugins" / "deps").string() + " (its RUNPATH)"),
            HasSubstr("writable by its group and others (mode 0777)")));
  fs::permissions(dir_ / "plugins" / "deps", fs::perms(0755));
  PluginRegistry fixed;
  EXPECT_NO_THROW(fixed.load(plugin));
}

TEST_F(SafeLoading, ADirectoryAboveThePluginsThatOthersCanWriteIsRefused) {
  // dir_/plugins is safe, but dir_ itself lets anyone rename plugins/ and put another in its place.
  fs::permissions(dir_, fs::perms(0777));
  PluginRegistry registry;
  EXPECT_THAT(
      message_of<PluginError>([&] { registry.load(plugin_); }),
      AllOf(HasSubstr("the directory " + dir_.string() + " is writable by others (mode 0777) without the sticky bit")));
  // With the sticky bit (like /tmp) nobody can rename what is not theirs: accepted.
  fs::permissions(dir_, fs::perms(01777));
  PluginRegistry sticky;
  EXPECT_NO_THROW(sticky.load(plugin_));
}

// ---- libraries whose initialisers misbehave ----

bool mapped_in_this_process(const std::string& path) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find(path) != std::string::npos) return true;
  return false;
}

TEST(SafeLoadingInitialisers, ALibraryIsOpenedInThisProcessOnlyWhenUsed) {
  PluginRegistry registry;
  const auto& info = registry.load(TEST_PLUGIN_TRIVIAL_VALID);
  EXPECT_FALSE(mapped_in_this_process(info.path.string())) << "found by a probe child, not opened here";
  auto strategy = registry.create("test_trivial_valid", {});
  EXPECT_TRUE(mapped_in_this_process(info.path.string()));
}

TEST(SafeLoadingInitialisers, AnInitialiserThatCrashesCostsAChildNotTheHost) {
  PluginRegistry registry;
  EXPECT_THAT(message_of<PluginError>([&] { registry.load(TEST_PLUGIN_CTOR_CRASHES); }),
              HasSubstr("crashed with SIGSEGV (Segmentation fault) while loading (in its initialisers)"));
  registry.load_directory(dir_of(TEST_PLUGIN_CTOR_CRASHES));
  ASSERT_EQ(registry.refused().size(), 1u);
  EXPECT_THAT(registry.refused()[0].reason, HasSubstr("crashed with SIGSEGV"));
  registry.load(TEST_PLUGIN_TRIVIAL_VALID);  // and the registry goes on
  EXPECT_EQ(registry.plugins().size(), 1u);
}

TEST(SafeLoadingInitialisers, AnInitialiserThatHangsIsGivenUpAtTheTimeLimit) {
  PluginRegistry registry;
  registry.set_load_time_limit(500);
  registry.load_directory(dir_of(TEST_PLUGIN_CTOR_HANGS));
  ASSERT_EQ(registry.refused().size(), 1u);
  EXPECT_THAT(registry.refused()[0].reason,
              HasSubstr("did not finish loading within 500 ms (limits.time_ms): its initialisers hang"));
}

}  // namespace
