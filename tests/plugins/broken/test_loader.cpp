// PluginRegistry against the deliberately broken plugins: one test per load error path, the messages
// (which file, why), directory loading, suggestions, strategy creation and object lifetimes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "assignor/errors.hpp"
#include "assignor/host/plugins/plugin_registry.hpp"
#include "assignor/plugin.hpp"
#include "assignor/validation.hpp"
#include "broken_test.hpp"
#include "cluster_builder.hpp"

namespace {

namespace fs = std::filesystem;
using namespace assignor_test::broken;

std::vector<std::string> names_of(const PluginRegistry& registry) {
  std::vector<std::string> names;
  for (const auto& p : registry.plugins()) names.push_back(p.name);
  return names;
}

assignor::Cluster small_cluster() {
  return assignor::testing::ClusterBuilder()
      .stateful("0_0", 100)
      .stateless("1_0")
      .client("a")
      .previous_active({"0_0"})
      .offsets({{"0_0", -2}})
      .client("b")
      .build();
}

// A fresh directory per test for files the build does not make (garbage, symlinks).
class PluginLoaderScratch : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           fmt::format("assignor-loader-{}-{}-{}", ::getpid(), info->test_suite_name(), info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
};

// ---- what loads ----

TEST(PluginLoader, BuiltinDirectoryListsTheShippedStrategies) {
  PluginRegistry registry;
  registry.load_directory(ASSIGNOR_PLUGIN_DIR);
  const auto names = names_of(registry);
  EXPECT_THAT(names, Contains("high_availability"));
  EXPECT_THAT(names, Contains("fallback_prior"));
  for (const auto& p : registry.plugins()) {
    SCOPED_TRACE(p.name);
    EXPECT_EQ(p.api_version, assignor::kPluginApiVersion);
    EXPECT_TRUE(p.path.is_absolute());
    EXPECT_EQ(p.path, fs::canonical(p.path));
    EXPECT_EQ(p.path.parent_path(), fs::canonical(ASSIGNOR_PLUGIN_DIR));
    EXPECT_FALSE(p.version.empty());
    EXPECT_FALSE(p.description.empty());
  }
  const PluginInfo* prior = registry.find("fallback_prior");
  ASSERT_NE(prior, nullptr);
  EXPECT_NE(prior->capabilities & assignor::kCapabilityHandlesUnknownLags, 0u);
  const PluginInfo* ha = registry.find("high_availability");
  ASSERT_NE(ha, nullptr);
  EXPECT_NE(ha->capabilities & assignor::kCapabilityHighAvailability, 0u);
  EXPECT_EQ(ha->capabilities & assignor::kCapabilityHandlesUnknownLags, 0u);
}

TEST(PluginLoader, GoodPluginLoadsWithItsDescriptor) {
  PluginRegistry registry;
  const PluginInfo info = registry.load(TEST_PLUGIN_TRIVIAL_VALID);
  EXPECT_EQ(info.name, "test_trivial_valid");
  EXPECT_EQ(info.version, "1.0.0");
  EXPECT_EQ(info.description, "every task active on the first client");
  EXPECT_EQ(info.api_version, assignor::kPluginApiVersion);
  EXPECT_EQ(info.capabilities, 0u);
  EXPECT_EQ(info.path.string(), real_path(TEST_PLUGIN_TRIVIAL_VALID));
  ASSERT_EQ(registry.plugins().size(), 1u);
  EXPECT_EQ(&registry.require("test_trivial_valid"), registry.find("test_trivial_valid"));
}

// ---- one test per load error: the message names the real file and the reason ----

TEST(PluginLoader, LibraryWithoutEntryPointIsRefused) {
  PluginRegistry registry;
  const std::string msg = message_of<PluginError>([&] { registry.load(TEST_PLUGIN_NO_ENTRY); });
  EXPECT_THAT(msg, HasSubstr(real_path(TEST_PLUGIN_NO_ENTRY)));
  EXPECT_THAT(msg, HasSubstr("does not export 'assignor_plugin_entry'"));
  EXPECT_THAT(registry.plugins(), IsEmpty());
}

TEST(PluginLoader, WrongApiVersionIsRefused) {
  PluginRegistry registry;
  const std::string msg = message_of<PluginError>([&] { registry.load(TEST_PLUGIN_WRONG_API); });
  EXPECT_THAT(msg, HasSubstr(real_path(TEST_PLUGIN_WRONG_API)));
  EXPECT_THAT(msg, HasSubstr(fmt::format("API version {}, this host supports {}", assignor::kPluginApiVersion + 2,
                                         assignor::kPluginApiVersion)));
  EXPECT_THAT(registry.plugins(), IsEmpty());
}

TEST(PluginLoader, WrongFingerprintIsRefused) {
  PluginRegistry registry;
  const std::string msg = message_of<PluginError>([&] { registry.load(TEST_PLUGIN_WRONG_FINGERPRINT); });
  EXPECT_THAT(msg, HasSubstr(real_path(TEST_PLUGIN_WRONG_FINGERPRINT)));
  EXPECT_THAT(msg, HasSubstr("gcc-1;nonsense;sdk-9.9"));
  EXPECT_THAT(msg, HasSubstr(assignor::kBuildFingerprint));
  EXPECT_THAT(registry.plugins(), IsEmpty());
}

// A plugin built against API 2 exports a Boost.DLL alias (a variable) where API 3 exports a
// function: its version is read through the alias, and it is refused by that number with the way to
// rebuild it (the test plugin declares 2; this host's number comes from the SDK).
TEST(PluginLoader, Api2PluginIsRefusedByNumberWithTheWayToRebuildIt) {
  PluginRegistry registry;
  const std::string msg = message_of<PluginError>([&] { registry.load(TEST_PLUGIN_API2); });
  EXPECT_THAT(msg, HasSubstr(real_path(TEST_PLUGIN_API2)));
  EXPECT_THAT(msg, HasSubstr(fmt::format("API version 2, this host supports {}", assignor::kPluginApiVersion)));
  EXPECT_THAT(msg, HasSubstr(fmt::format("rebuild it against this one (find_package(Assignor {})",
                                         assignor::kPluginApiVersion)));
  EXPECT_THAT(registry.plugins(), IsEmpty());
}

TEST(PluginLoader, LibraryWithoutANameNoteIsRefused) {
  PluginRegistry registry;
  const std::string msg = message_of<PluginError>([&] { registry.load(TEST_PLUGIN_NO_NAME_NOTE); });
  EXPECT_THAT(msg, HasSubstr(real_path(TEST_PLUGIN_NO_NAME_NOTE)));
  EXPECT_THAT(msg, HasSubstr("carries no plugin name note (section .note.assignor)"));
  EXPECT_THAT(registry.plugins(), IsEmpty());
}

TEST(PluginLoader, NameNoteThatNamesAnotherPluginIsRefused) {
  PluginRegistry registry;
  const std::string msg = message_of<PluginError>([&] { registry.load(TEST_PLUGIN_NOTE_MISMATCH); });
  EXPECT_THAT(msg, HasSubstr(real_path(TEST_PLUGIN_NOTE_MISMATCH)));
  EXPECT_THAT(msg, HasSubstr("its name note says 'test_note_claims_this' but its descriptor names it "
                             "'test_note_mismatch'"));
  EXPECT_THAT(registry.plugins(), IsEmpty());
}

TEST(PluginLoader, IncompleteDescriptorIsRefused) {
  PluginRegistry registry;
  const std::string msg = message_of<PluginError>([&] { registry.load(TEST_PLUGIN_INCOMPLETE); });
  EXPECT_THAT(msg, HasSubstr(real_path(TEST_PLUGIN_INCOMPLETE)));
  EXPECT_THAT(msg, HasSubstr("incomplete descriptor"));
  EXPECT_THAT(registry.plugins(), IsEmpty());
}

TEST(PluginLoader, UnresolvedSymbolIsRefusedWithTheLoadersReason) {
  PluginRegistry registry;
  const std::string msg = message_of<PluginError>([&] { registry.load(TEST_PLUGIN_UNRESOLVED_SYMBOL); });
  EXPECT_THAT(msg, HasSubstr(real_path(TEST_PLUGIN_UNRESOLVED_SYMBOL)));
  EXPECT_THAT(msg, HasSubstr("cannot load plugin"));
  EXPECT_THAT(msg, HasSubstr("assignor_test_symbol_nobody_defines"));
  EXPECT_THAT(registry.plugins(), IsEmpty());
}

TEST(PluginLoader, MissingFileIsRefused) {
  PluginRegistry registry;
  const std::string msg = message_of<PluginError>([&] { registry.load("/nonexistent/assignor/no_such_plugin.so"); });
  EXPECT_THAT(msg, HasSubstr("/nonexistent/assignor/no_such_plugin.so"));
  EXPECT_THAT(msg, HasSubstr("cannot load plugin"));
}

TEST_F(PluginLoaderScratch, FileThatIsNotALibraryIsRefusedByLoadAndSkippedByLoadDirectory) {
  const fs::path garbage = dir_ / "garbage.so";
  std::ofstream(garbage) << "this is not an ELF file\n";
  PluginRegistry registry;
  const std::string msg = message_of<PluginError>([&] { registry.load(garbage); });
  EXPECT_THAT(msg, HasSubstr(fs::canonical(garbage).string()));
  EXPECT_THAT(msg, HasSubstr("cannot load plugin"));
  EXPECT_NO_THROW(registry.load_directory(dir_));
  EXPECT_THAT(registry.plugins(), IsEmpty());
}

TEST(PluginLoader, DuplicateNameNamesBothFiles) {
  PluginRegistry registry;
  registry.load(TEST_PLUGIN_DUPLICATE_NAME_A);
  const std::string msg = message_of<PluginError>([&] { registry.load(TEST_PLUGIN_DUPLICATE_NAME_B); });
  EXPECT_THAT(msg, HasSubstr("'dup'"));
  EXPECT_THAT(msg, HasSubstr(real_path(TEST_PLUGIN_DUPLICATE_NAME_A)));
  EXPECT_THAT(msg, HasSubstr(real_path(TEST_PLUGIN_DUPLICATE_NAME_B)));
  ASSERT_EQ(registry.plugins().size(), 1u);
  EXPECT_EQ(registry.plugins()[0].version, "1.0.0-a");  // the first one stays
}

TEST(PluginLoader, DuplicateNameInOneDirectoryNamesBothFiles) {
  ASSERT_EQ(dir_of(TEST_PLUGIN_DUPLICATE_NAME_A), dir_of(TEST_PLUGIN_DUPLICATE_NAME_B));
  PluginRegistry registry;
  registry.load_directory(dir_of(TEST_PLUGIN_DUPLICATE_NAME_A));  // other plugins stay usable
  // Asking for the name that two libraries claim is the error, naming both.
  const std::string msg = message_of<PluginError>([&] { registry.require("dup"); });
  EXPECT_THAT(msg, HasSubstr("two plugins are named 'dup'"));
  EXPECT_THAT(msg, HasSubstr(real_path(TEST_PLUGIN_DUPLICATE_NAME_A)));
  EXPECT_THAT(msg, HasSubstr(real_path(TEST_PLUGIN_DUPLICATE_NAME_B)));
  EXPECT_THROW(registry.create("dup", {}), PluginError);
}

TEST_F(PluginLoaderScratch, SameFileThroughASymlinkIsNotADuplicate) {
  const fs::path link = dir_ / "alias_of_trivial.so";
  fs::create_symlink(fs::canonical(TEST_PLUGIN_TRIVIAL_VALID), link);
  PluginRegistry registry;
  registry.load(TEST_PLUGIN_TRIVIAL_VALID);
  const PluginInfo again = registry.load(link);
  EXPECT_EQ(again.name, "test_trivial_valid");
  EXPECT_EQ(again.path.string(), real_path(TEST_PLUGIN_TRIVIAL_VALID));
  registry.load_directory(dir_);
  registry.load_directory(dir_of(TEST_PLUGIN_TRIVIAL_VALID));
  EXPECT_EQ(registry.plugins().size(), 1u);
}

// ---- directories ----

TEST(PluginLoader, LoadDirectorySkipsANonPluginLibrarySilently) {
  PluginRegistry registry;
  EXPECT_NO_THROW(registry.load_directory(dir_of(TEST_PLUGIN_NO_ENTRY)));
  EXPECT_THAT(registry.plugins(), IsEmpty());
}

// A plugin directory's library that fails a check is skipped and listed with its reason; asking for
// a strategy that is not there names it. (load() of that file, asked for explicitly, throws.)
TEST(PluginLoader, LoadDirectorySkipsAPluginThatFailsACheckAndSaysWhy) {
  struct Case {
    const char* library;
    const char* reason;
  };
  for (const Case& c :
       {Case{TEST_PLUGIN_WRONG_API, "API version"}, Case{TEST_PLUGIN_WRONG_FINGERPRINT, "gcc-1;nonsense;sdk-9.9"},
        Case{TEST_PLUGIN_INCOMPLETE, "incomplete descriptor"},
        Case{TEST_PLUGIN_UNRESOLVED_SYMBOL, "assignor_test_symbol_nobody_defines"}}) {
    SCOPED_TRACE(c.library);
    PluginRegistry registry;
    EXPECT_NO_THROW(registry.load_directory(dir_of(c.library)));
    EXPECT_THAT(registry.plugins(), IsEmpty());
    ASSERT_EQ(registry.refused().size(), 1u);
    EXPECT_EQ(registry.refused()[0].path.string(), real_path(c.library));
    EXPECT_THAT(registry.refused()[0].reason, AllOf(HasSubstr(real_path(c.library)), HasSubstr(c.reason)));
    EXPECT_THAT(message_of<PluginError>([&] { registry.require("anything"); }),
                AllOf(HasSubstr("1 library was refused"), HasSubstr(c.reason)));
  }
}

TEST(PluginLoader, LoadDirectoryOfAMissingDirectoryFails) {
  PluginRegistry registry;
  const std::string msg = message_of<PluginError>([&] { registry.load_directory("/nonexistent/assignor/plugins"); });
  EXPECT_THAT(msg, HasSubstr("/nonexistent/assignor/plugins"));
  EXPECT_THAT(msg, HasSubstr("does not exist"));
}

TEST(PluginLoader, ARefusedLibraryLeavesTheRegistryUsable) {
  PluginRegistry registry;
  EXPECT_THROW(registry.load(TEST_PLUGIN_WRONG_API), PluginError);
  EXPECT_THROW(registry.load(TEST_PLUGIN_INCOMPLETE), PluginError);
  EXPECT_THROW(registry.load(TEST_PLUGIN_NO_ENTRY), PluginError);
  registry.load(TEST_PLUGIN_TRIVIAL_VALID);
  EXPECT_EQ(names_of(registry), std::vector<std::string>{"test_trivial_valid"});
  auto strategy = registry.create("test_trivial_valid", {});
  const auto cluster = small_cluster();
  const assignor::AssignmentSettings settings;
  const assignor::LagModel lags(cluster, settings);
  EXPECT_THAT(assignor::validate(cluster, settings, strategy->assign({cluster, settings, lags})), IsEmpty());
}

// ---- on demand (index_directory): only the library of the name asked for is opened ----

// A scratch directory of symlinks to built test plugins (the registry follows them to the real files).
class PluginIndex : public PluginLoaderScratch {
 protected:
  void link(const char* built) { fs::create_symlink(fs::canonical(built), dir_ / fs::path(built).filename()); }
};

TEST_F(PluginIndex, OpensOnlyTheLibraryOfTheNameAskedFor) {
  // Opening either of the other two would add a refusal: one crashes in its initialiser, one is of
  // another API version.
  link(TEST_PLUGIN_CTOR_CRASHES);
  link(TEST_PLUGIN_WRONG_API);
  link(TEST_PLUGIN_TRIVIAL_VALID);
  PluginRegistry registry;
  registry.index_directory(dir_);
  EXPECT_THAT(registry.plugins(), IsEmpty());
  EXPECT_THAT(registry.names(),
              ::testing::UnorderedElementsAre("test_ctor_crashes", "test_wrong_api", "test_trivial_valid"));
  const PluginInfo* trivial = registry.find("test_trivial_valid");
  ASSERT_NE(trivial, nullptr);
  EXPECT_EQ(trivial->path.string(), real_path(TEST_PLUGIN_TRIVIAL_VALID));
  EXPECT_EQ(names_of(registry), std::vector<std::string>{"test_trivial_valid"});
  EXPECT_THAT(registry.refused(), IsEmpty());
  EXPECT_NE(registry.create("test_trivial_valid", {}), nullptr);
  EXPECT_THAT(registry.refused(), IsEmpty());
  // A name nobody has: every library is opened, so that the message names all that were refused.
  const std::string msg = message_of<PluginError>([&] { registry.require("test_trivial_vaild"); });
  EXPECT_THAT(msg, AllOf(HasSubstr("did you mean 'test_trivial_valid'"), HasSubstr("2 libraries were refused"),
                         HasSubstr("crashed with SIGSEGV"), HasSubstr("API version")));
}

TEST_F(PluginIndex, TheNotesOfTheBundledPluginsNameWhatTheirDescriptorsName) {
  PluginRegistry loaded;
  loaded.load_directory(ASSIGNOR_PLUGIN_DIR);
  PluginRegistry indexed;
  indexed.index_directory(ASSIGNOR_PLUGIN_DIR);
  std::vector<std::string> by_descriptor = names_of(loaded);
  std::vector<std::string> by_note = indexed.names();
  std::sort(by_descriptor.begin(), by_descriptor.end());
  std::sort(by_note.begin(), by_note.end());
  EXPECT_EQ(by_note, by_descriptor);
  EXPECT_THAT(indexed.plugins(), IsEmpty());
  for (const auto& name : by_descriptor) {
    SCOPED_TRACE(name);
    const PluginInfo* info = indexed.find(name);
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(info->path, loaded.find(name)->path);
  }
  EXPECT_THAT(indexed.refused(), IsEmpty());
}

TEST_F(PluginIndex, TwoLibrariesClaimingOneNameAreAnErrorBeforeEitherIsOpened) {
  PluginRegistry registry;
  registry.index_directory(dir_of(TEST_PLUGIN_DUPLICATE_NAME_A));
  const std::string msg = message_of<PluginError>([&] { registry.require("dup"); });
  EXPECT_THAT(msg, HasSubstr("two plugins are named 'dup'"));
  EXPECT_THAT(msg, HasSubstr(real_path(TEST_PLUGIN_DUPLICATE_NAME_A)));
  EXPECT_THAT(msg, HasSubstr(real_path(TEST_PLUGIN_DUPLICATE_NAME_B)));
  EXPECT_EQ(registry.find("dup"), nullptr);
  EXPECT_THAT(registry.plugins(), IsEmpty());
}

TEST_F(PluginIndex, ALibraryLoadedByPathAndAnIndexedOneWithItsNameAreAnError) {
  link(TEST_PLUGIN_DUPLICATE_NAME_A);
  PluginRegistry registry;
  registry.index_directory(dir_);
  EXPECT_THROW(registry.load(TEST_PLUGIN_DUPLICATE_NAME_B), PluginError);
  EXPECT_THAT(message_of<PluginError>([&] { registry.require("dup"); }), HasSubstr("two plugins are named 'dup'"));
}

TEST_F(PluginIndex, LibrariesWithoutANoteAreOpenedOnlyForANameNoNoteClaims) {
  link(TEST_PLUGIN_API2);
  link(TEST_PLUGIN_TRIVIAL_VALID);
  PluginRegistry registry;
  registry.index_directory(dir_);
  EXPECT_EQ(registry.names(), std::vector<std::string>{"test_trivial_valid"});
  ASSERT_NE(registry.find("test_trivial_valid"), nullptr);
  EXPECT_THAT(registry.refused(), IsEmpty());
  // The API-2 library claims nothing: asked for its name, it is opened, and refused by number.
  EXPECT_EQ(registry.find("test_api2"), nullptr);
  ASSERT_EQ(registry.refused().size(), 1u);
  EXPECT_EQ(registry.refused()[0].path.string(), real_path(TEST_PLUGIN_API2));
  EXPECT_THAT(registry.refused()[0].reason, HasSubstr("API version 2"));
}

TEST_F(PluginIndex, ALibraryWhoseDescriptorNamesAnotherPluginThanItsNoteIsRefusedWhenOpened) {
  PluginRegistry registry;
  registry.index_directory(dir_of(TEST_PLUGIN_NOTE_MISMATCH));
  EXPECT_EQ(registry.names(), std::vector<std::string>{"test_note_claims_this"});
  EXPECT_EQ(registry.find("test_note_claims_this"), nullptr);
  ASSERT_EQ(registry.refused().size(), 1u);
  EXPECT_THAT(registry.refused()[0].reason, HasSubstr("its name note says 'test_note_claims_this'"));
  EXPECT_EQ(registry.find("test_note_mismatch"), nullptr);  // never under the descriptor's name either
}

// ---- names ----

TEST(PluginLoader, RequireSuggestsTheNearestName) {
  PluginRegistry registry;
  registry.load_directory(ASSIGNOR_PLUGIN_DIR);
  EXPECT_EQ(registry.find("high_availabilty"), nullptr);
  const std::string msg = message_of<PluginError>([&] { registry.require("high_availabilty"); });
  EXPECT_THAT(msg, HasSubstr("'high_availabilty'"));
  EXPECT_THAT(msg, HasSubstr("did you mean 'high_availability'"));
  EXPECT_THAT(msg, HasSubstr("fallback_prior"));  // the loaded plugins are listed
}

TEST(PluginLoader, RequireOnAnEmptyRegistrySaysNoneIsLoaded) {
  PluginRegistry registry;
  const std::string msg = message_of<PluginError>([&] { registry.require("high_availability"); });
  EXPECT_THAT(msg, HasSubstr("'high_availability'"));
  EXPECT_THAT(msg, HasSubstr("none"));
  EXPECT_THAT(msg, Not(HasSubstr("did you mean")));
}

// ---- creation: factory failures become typed errors naming the plugin ----

TEST(PluginFactory, ThrowingFactoryIsAStrategyErrorNamingThePlugin) {
  PluginRegistry registry;
  registry.load(TEST_PLUGIN_FACTORY_THROWS);
  const std::string msg = message_of<StrategyError>([&] { registry.create("test_factory_throws", {}); });
  EXPECT_THAT(msg, HasSubstr("test_factory_throws"));
  EXPECT_THAT(msg, HasSubstr(real_path(TEST_PLUGIN_FACTORY_THROWS)));
  EXPECT_THAT(msg, HasSubstr("boom"));
}

TEST(PluginFactory, FactoryThrowingANonStandardExceptionIsAStrategyError) {
  PluginRegistry registry;
  registry.load(TEST_PLUGIN_FACTORY_THROWS);
  const StrategyParams params = params_of({{"non_std", "true"}});
  const std::string msg = message_of<StrategyError>([&] { registry.create("test_factory_throws", params); });
  EXPECT_THAT(msg, HasSubstr("test_factory_throws"));
  EXPECT_THAT(msg, HasSubstr("unknown exception"));
}

TEST(PluginFactory, NullFactoryResultIsAStrategyErrorNamingThePlugin) {
  PluginRegistry registry;
  registry.load(TEST_PLUGIN_FACTORY_NULL);
  const std::string msg = message_of<StrategyError>([&] { registry.create("test_factory_null", {}); });
  EXPECT_THAT(msg, HasSubstr("test_factory_null"));
  EXPECT_THAT(msg, HasSubstr(real_path(TEST_PLUGIN_FACTORY_NULL)));
  EXPECT_THAT(msg, HasSubstr("returned no strategy"));
}

TEST(PluginFactory, UnknownParameterIsAConfigErrorWithASuggestion) {
  PluginRegistry registry;
  registry.load(TEST_PLUGIN_FACTORY_BAD_PARAM);
  const StrategyParams params = params_of({{"alpah", "0.5"}});
  const std::string msg = message_of<ConfigError>([&] { registry.create("test_factory_bad_param", params); });
  EXPECT_THAT(msg, HasSubstr("strategies.test_factory_bad_param"));
  EXPECT_THAT(msg, HasSubstr("'alpah'"));
  EXPECT_THAT(msg, HasSubstr("did you mean 'alpha'"));
  // The parameter it knows is accepted.
  EXPECT_NE(registry.create("test_factory_bad_param", params_of({{"alpha", "0.5"}})), nullptr);
}

TEST(PluginFactory, CreatingAnUnknownStrategyIsAPluginError) {
  PluginRegistry registry;
  registry.load(TEST_PLUGIN_TRIVIAL_VALID);
  const std::string msg = message_of<PluginError>([&] { registry.create("test_trivial_vaild", {}); });
  EXPECT_THAT(msg, HasSubstr("did you mean 'test_trivial_valid'"));
}

// ---- lifetimes (meaningful under -DASSIGNOR_SANITIZE=ON) ----

TEST(PluginLifetime, HandleDeclaredAfterTheRegistryIsDestroyedFirst) {
  const auto cluster = small_cluster();
  const assignor::AssignmentSettings settings;
  const assignor::LagModel lags(cluster, settings);
  PluginRegistry registry;
  registry.load_directory(ASSIGNOR_PLUGIN_DIR);
  registry.load(TEST_PLUGIN_TRIVIAL_VALID);
  StrategyHandle handle = registry.create("high_availability", {});
  ASSERT_NE(handle, nullptr);
  EXPECT_THAT(assignor::validate(cluster, settings, handle->assign({cluster, settings, lags})), IsEmpty());
  StrategyHandle trivial = registry.create("test_trivial_valid", {});
  EXPECT_THAT(assignor::validate(cluster, settings, trivial->assign({cluster, settings, lags})), IsEmpty());
  // Leaving the scope destroys the handles (declared last) before the registry.
}

TEST(PluginLifetime, HandleKeepsItsLibraryLoadedAfterTheRegistryIsGone) {
  const auto cluster = small_cluster();
  const assignor::AssignmentSettings settings;
  const assignor::LagModel lags(cluster, settings);
  auto registry = std::make_unique<PluginRegistry>();
  registry->load(TEST_PLUGIN_TRIVIAL_VALID);
  registry->load_directory(ASSIGNOR_PLUGIN_DIR);
  StrategyHandle trivial = registry->create("test_trivial_valid", {});
  StrategyHandle ha = registry->create("high_availability", {});
  registry.reset();  // the handles must keep the code of their objects mapped
  EXPECT_THAT(assignor::validate(cluster, settings, trivial->assign({cluster, settings, lags})), IsEmpty());
  EXPECT_THAT(assignor::validate(cluster, settings, ha->assign({cluster, settings, lags})), IsEmpty());
  trivial.reset();
  ha.reset();
}

TEST(PluginLifetime, ManyCreateDestroyCyclesAcrossRegistries) {
  const auto cluster = small_cluster();
  const assignor::AssignmentSettings settings;
  const assignor::LagModel lags(cluster, settings);
  std::vector<StrategyHandle> survivors;  // outlive the registry that made them
  for (int round = 0; round < 3; ++round) {
    PluginRegistry registry;
    registry.load_directory(ASSIGNOR_PLUGIN_DIR);
    registry.load(TEST_PLUGIN_TRIVIAL_VALID);
    registry.load(TEST_PLUGIN_STRATEGY_THROWS);
    std::vector<StrategyHandle> handles;
    for (int i = 0; i < 4; ++i)
      for (const auto& p : registry.plugins()) handles.push_back(registry.create(p.name, {}));
    for (auto& h : handles) {
      try {
        (void)h->assign({cluster, settings, lags});
      } catch (const std::exception& e) {
        // An exception thrown by plugin code is handled (and destroyed) while its library is mapped.
        EXPECT_THAT(std::string(e.what()), HasSubstr("boom"));
      }
    }
    // Half the handles die with this scope, before the registry; the other half outlive it.
    for (std::size_t i = 0; i < handles.size(); i += 2) survivors.push_back(std::move(handles[i]));
  }
  std::size_t valid = 0;
  for (auto& h : survivors) {
    try {
      valid += assignor::validate(cluster, settings, h->assign({cluster, settings, lags})).empty() ? 1 : 0;
    } catch (const std::exception& e) {
      EXPECT_THAT(std::string(e.what()), HasSubstr("boom"));
    }
  }
  EXPECT_GT(valid, 0u);
  survivors.clear();
}

}  // namespace
