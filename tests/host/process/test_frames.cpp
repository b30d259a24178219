// The framed-message protocol (process/frames.hpp): every exchange between the host and a process
// it talks to. Expectations are written out by hand from the format: "words... N\n" + N bytes.
#include <gtest/gtest.h>

#include <unistd.h>

#include <new>
#include <string>

#include "assignor/errors.hpp"
#include "assignor/host/process/frames.hpp"

namespace assignor::host::process {
namespace {

TEST(Frames, EncodeWritesTheWordsThenTheLengthThenThePayload) {
  EXPECT_EQ(encode_frame({"ok"}, "{}"), "ok 2\n{}");
  EXPECT_EQ(encode_frame({"assignment", "1", "3", "0", "0"}, ""), "assignment 1 3 0 0 0\n");
  EXPECT_EQ(encode_frame({"error", "2"}, "bad"), "error 2 3\nbad");
}

TEST(Frames, EncodeRefusesWordsThatWouldBreakTheHeader) {
  EXPECT_THROW(encode_frame({}, "x"), std::invalid_argument);
  EXPECT_THROW(encode_frame({"two words"}, "x"), std::invalid_argument);
  EXPECT_THROW(encode_frame({""}, "x"), std::invalid_argument);
  EXPECT_THROW(encode_frame({"new\nline"}, "x"), std::invalid_argument);
  EXPECT_THROW(encode_frame({std::string(2000, 'a')}, "x"), std::invalid_argument);
}

TEST(Frames, AStreamFedOneByteAtATimeGivesTheSameFrames) {
  const std::string payload("binary\0\n\xff payload", 18);
  const std::string stream =
      encode_frame({"one"}, "") + encode_frame({"two", "x"}, payload) + encode_frame({"three"}, "3");
  FrameReader reader;
  std::vector<Frame> frames;
  for (char c : stream) {
    ASSERT_TRUE(reader.feed(std::string_view(&c, 1)));
    while (auto f = reader.next()) frames.push_back(std::move(*f));
  }
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[0].words, std::vector<std::string>{"one"});
  EXPECT_EQ(frames[0].payload, "");
  EXPECT_EQ(frames[1].words, (std::vector<std::string>{"two", "x"}));
  EXPECT_EQ(frames[1].payload, payload);
  EXPECT_EQ(frames[2].kind(), "three");
  EXPECT_EQ(frames[2].payload, "3");
  EXPECT_FALSE(reader.mid_frame());
}

TEST(Frames, APartialFrameIsHeldUntilItsLastByte) {
  FrameReader reader;
  ASSERT_TRUE(reader.feed("ok 5\nabc"));
  EXPECT_FALSE(reader.next().has_value());
  EXPECT_TRUE(reader.mid_frame());
  ASSERT_TRUE(reader.feed("de"));
  const auto f = reader.next();
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->payload, "abcde");
  EXPECT_FALSE(reader.mid_frame());
}

struct Malformed {
  const char* stream;
  const char* message;  // a piece of error()
};

class FramesMalformed : public testing::TestWithParam<Malformed> {};

TEST_P(FramesMalformed, IsRefusedWithTheReason) {
  FrameReader reader({.max_payload = 100});
  reader.feed(GetParam().stream);
  EXPECT_FALSE(reader.next().has_value());
  ASSERT_TRUE(reader.malformed());
  EXPECT_NE(reader.error().find(GetParam().message), std::string::npos) << reader.error();
  EXPECT_FALSE(reader.feed("ok 0\n")) << "nothing is read after a malformed header";
}

INSTANTIATE_TEST_SUITE_P(
    Headers, FramesMalformed,
    testing::Values(Malformed{"ok\n", "without a kind and a length"}, Malformed{"5\n", "without a kind and a length"},
                    Malformed{"ok five\n", "not a decimal number"}, Malformed{"ok -5\n", "not a decimal number"},
                    Malformed{"ok 05\n", "not a decimal number"}, Malformed{"ok 5x\n", "not a decimal number"},
                    Malformed{"ok 101\n", "more than the limit of 100"},
                    Malformed{"ok 18446744073709551616\n", "not a decimal number"},
                    Malformed{"ok\t1 0\n", "not words of printable ASCII"},
                    Malformed{"o\x01k 0\n", "not words of printable ASCII"},
                    Malformed{"ok  0\n", "not words of printable ASCII"}),
    [](const testing::TestParamInfo<Malformed>& param) { return "case" + std::to_string(param.index); });

TEST(Frames, AHeaderWithoutANewlineIsRefusedOnceItIsTooLongToBeOne) {
  FrameReader reader;
  reader.feed(std::string(kMaxHeaderBytes - 1, 'a'));
  EXPECT_FALSE(reader.malformed()) << "still short enough to be a header";
  reader.feed("a");
  EXPECT_TRUE(reader.malformed());
  EXPECT_NE(reader.error().find("without a newline"), std::string::npos);
}

TEST(Frames, FailureFramesCarryTheExactKindAndRethrowIt) {
  FrameReader reader;
  reader.feed(failure_frame(ErrorKind::config, "bad parameter") + failure_frame(ErrorKind::plugin, "no such") +
              failure_frame(ErrorKind::failed, "invalid") + failure_frame(ErrorKind::strategy, "threw") +
              failure_frame(ErrorKind::input, "bad file") + encode_frame({"fail", "unheard_of"}, "x") +
              encode_frame({"ok"}, "fine"));
  EXPECT_THROW(rethrow_if_failure(*reader.next()), ConfigError);
  EXPECT_THROW(rethrow_if_failure(*reader.next()), PluginError);
  EXPECT_THROW(rethrow_if_failure(*reader.next()), AssignmentFailed);
  EXPECT_THROW(rethrow_if_failure(*reader.next()), StrategyError);
  try {
    rethrow_if_failure(*reader.next());
    FAIL() << "an input failure must be thrown";
  } catch (const ConfigError&) {
    FAIL() << "an input failure is not a config failure";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "bad file");
  }
  try {
    rethrow_if_failure(*reader.next());
    FAIL() << "an unknown kind must be thrown";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown kind 'unheard_of'"), std::string::npos);
  }
  EXPECT_NO_THROW(rethrow_if_failure(*reader.next()));
}

TEST(Frames, ErrorFramesCarryTheExitStatusOfDesign43) {
  EXPECT_EQ(error_frame(ErrorKind::input, "m"), "error 2 1\nm");
  EXPECT_EQ(error_frame(ErrorKind::config, "m"), "error 2 1\nm");
  EXPECT_EQ(error_frame(ErrorKind::out_of_memory, "m"), "error 2 1\nm");
  EXPECT_EQ(error_frame(ErrorKind::plugin, "m"), "error 3 1\nm");
  EXPECT_EQ(error_frame(ErrorKind::strategy, "m"), "error 4 1\nm");
  EXPECT_EQ(error_frame(ErrorKind::failed, "m"), "error 4 1\nm");
  EXPECT_EQ(error_frame(ErrorKind::internal, "m"), "error 1 1\nm");
}

TEST(Frames, ErrorKindsFollowTheExceptionTypesMostSpecificFirst) {
  EXPECT_EQ(error_kind(ConfigError("x")), ErrorKind::config);
  EXPECT_EQ(error_kind(InputError("x")), ErrorKind::input);
  EXPECT_EQ(error_kind(PluginError("x")), ErrorKind::plugin);
  EXPECT_EQ(error_kind(AssignmentFailed("x", {})), ErrorKind::failed);
  EXPECT_EQ(error_kind(StrategyError("x")), ErrorKind::strategy);
  EXPECT_EQ(error_kind(std::bad_alloc()), ErrorKind::out_of_memory);
  EXPECT_EQ(error_kind(std::logic_error("x")), ErrorKind::internal);
  for (ErrorKind k : {ErrorKind::config, ErrorKind::input, ErrorKind::plugin, ErrorKind::failed, ErrorKind::strategy,
                      ErrorKind::out_of_memory, ErrorKind::internal})
    EXPECT_EQ(error_kind_named(error_kind_name(k)), k);
  EXPECT_FALSE(error_kind_named("Config").has_value());
}

TEST(Frames, ReadFrameReadsWholeFramesFromADescriptorAndTellsACutStream) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const std::string stream = encode_frame({"assign"}, "tasks: []") + "assign 10\nshort";
  ASSERT_EQ(::write(fds[1], stream.data(), stream.size()), static_cast<ssize_t>(stream.size()));
  ::close(fds[1]);
  FrameReader reader;
  const auto first = read_frame(fds[0], reader);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->payload, "tasks: []");
  try {
    (void)read_frame(fds[0], reader);
    FAIL() << "a stream cut inside a frame must be an error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("ended inside a frame"), std::string::npos);
  }
  ::close(fds[0]);
}

TEST(Frames, ReadFrameEndsCleanlyBetweenFrames) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const std::string stream = encode_frame({"assign"}, "x");
  ASSERT_EQ(::write(fds[1], stream.data(), stream.size()), static_cast<ssize_t>(stream.size()));
  ::close(fds[1]);
  FrameReader reader;
  EXPECT_TRUE(read_frame(fds[0], reader).has_value());
  EXPECT_FALSE(read_frame(fds[0], reader).has_value());
  ::close(fds[0]);
}

}  // namespace
}  // namespace assignor::host::process
