#include <doctest/doctest.h>

#include <boost/filesystem.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.h"
#include "util/config.h"
#include "util/error.h"

namespace tengen {
namespace {

using testing::TempDir;

namespace fs = boost::filesystem;

ConfigSpec TestSpec() {
  ConfigSpec spec("tengen-test", "A program that exists only in tests.");
  spec.Int("num_games", 10, 0, 100, "games to play")
      .Double("komi", 7.5, -50, 50, "points for white")
      .Bool("verbose", false, "log more")
      .String("model_dir", "models", "where models live")
      .Choice("rules.ko", "simple", {"simple", "positional"}, "ko rule")
      .Int("max_games_total", 1000, 0, 1000000, "stop after this many games");
  return spec;
}

// ParseCommandLine over a list of arguments (the program name is added).
CommandLine Parse(const ConfigSpec& spec, Config& config, std::vector<std::string> args,
                  bool allow_positional = false) {
  args.insert(args.begin(), "tengen-test");
  std::vector<const char*> argv;
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  return ParseCommandLine(spec, static_cast<int>(argv.size()), argv.data(), config,
                          allow_positional);
}

// The message of the ConfigError that `body` throws; fails the test if it throws none.
template <typename Body>
std::string ConfigErrorOf(Body body) {
  try {
    body();
  } catch (const ConfigError& e) {
    return e.what();
  }
  FAIL("expected a ConfigError");
  return "";
}

TEST_CASE("config: defaults") {
  const ConfigSpec spec = TestSpec();
  Config config(spec);
  CHECK(config.GetInt("num_games") == 10);
  CHECK(config.GetDouble("komi") == 7.5);
  CHECK(config.GetBool("verbose") == false);
  CHECK(config.GetString("model_dir") == "models");
  CHECK(config.GetString("rules.ko") == "simple");
  CHECK(config.Origin("num_games") == "default");
  CHECK(config.Describe().find("num_games = 10  (default)") != std::string::npos);
  CHECK_THROWS_AS(config.GetInt("komi"), CheckError);
  CHECK_THROWS_AS(config.GetInt("undeclared"), CheckError);
}

TEST_CASE("config: file values, sections and comments") {
  const ConfigSpec spec = TestSpec();
  Config config(spec);
  TempDir dir;
  const std::string path = dir.Write("a.cfg",
                                     "# a comment line\n"
                                     "\n"
                                     "num_games = 42   # trailing comment\n"
                                     "  komi=-3.25\n"
                                     "verbose = yes\n"
                                     "model_dir = /data/models\r\n"
                                     "[rules]\n"
                                     "ko = positional\n");
  ApplyConfigFile(config, path);
  CHECK(config.GetInt("num_games") == 42);
  CHECK(config.GetDouble("komi") == -3.25);
  CHECK(config.GetBool("verbose") == true);
  CHECK(config.GetString("model_dir") == "/data/models");
  CHECK(config.GetString("rules.ko") == "positional");
  CHECK(config.Origin("num_games") == path + ":3");
  CHECK(config.Origin("rules.ko") == path + ":8");
}

TEST_CASE("config: bool spellings") {
  const ConfigSpec spec = TestSpec();
  Config config(spec);
  for (const char* yes : {"true", "1", "yes", "on", "TRUE", "On"}) {
    config.Set("verbose", "false", "test");
    config.Set("verbose", yes, "test");
    CHECK(config.GetBool("verbose"));
  }
  for (const char* no : {"false", "0", "no", "off", "False"}) {
    config.Set("verbose", "true", "test");
    config.Set("verbose", no, "test");
    CHECK_FALSE(config.GetBool("verbose"));
  }
}

TEST_CASE("config: command line overrides files, in order") {
  const ConfigSpec spec = TestSpec();
  Config config(spec);
  TempDir dir;
  const std::string first = dir.Write("first.cfg", "num_games = 1\nkomi = 1\nverbose = true\n");
  const std::string second = dir.Write("second.cfg", "num_games = 2\n");
  // The --set comes before the --config on the command line, and still wins.
  const CommandLine line = Parse(spec, config,
                                 {"--set", "komi=2.5", "--config", first, "--config", second,
                                  "--set", "model_dir=a", "--set", "model_dir=b"});
  CHECK_FALSE(line.help_requested);
  CHECK(config.GetInt("num_games") == 2);
  CHECK(config.Origin("num_games") == second + ":1");
  CHECK(config.GetDouble("komi") == 2.5);
  CHECK(config.Origin("komi") == "--set");
  CHECK(config.GetBool("verbose"));
  CHECK(config.GetString("model_dir") == "b");
}

TEST_CASE("config: --key-name flags, either spelling") {
  const ConfigSpec spec = TestSpec();
  Config config(spec);
  Parse(spec, config,
        {"--max-games-total", "77", "--rules.ko=positional", "--num_games", "5", "--verbose",
         "--set", "model-dir=x"});
  CHECK(config.GetInt("max_games_total") == 77);
  CHECK(config.Origin("max_games_total") == "--max-games-total");
  CHECK(config.GetString("rules.ko") == "positional");
  CHECK(config.GetInt("num_games") == 5);
  CHECK(config.GetBool("verbose"));
  CHECK(config.GetString("model_dir") == "x");

  // Flags and --set apply in command-line order: the last one wins.
  Parse(spec, config, {"--set", "num_games=6", "--num-games", "7"});
  CHECK(config.GetInt("num_games") == 7);
  Parse(spec, config, {"--num-games", "7", "--set", "num_games=8"});
  CHECK(config.GetInt("num_games") == 8);
}

TEST_CASE("config: file errors name the file, line, key and value") {
  const ConfigSpec spec = TestSpec();
  Config config(spec);
  TempDir dir;
  struct Case {
    std::string text;
    std::vector<std::string> expected;
  };
  const std::vector<Case> cases = {
      {"num_games = 3\nfoo_bar = 1\n", {"bad.cfg:2", "unknown key 'foo_bar'"}},
      {"\n\nnum_games = 10x\n", {"bad.cfg:3", "'num_games'", "'10x'", "not an integer"}},
      {"num_games = -5\n", {"bad.cfg:1", "'num_games'", "'-5'", "out of range [0, 100]"}},
      {"num_games = 99999999999999999999\n", {"bad.cfg:1", "'99999999999999999999'", "range"}},
      {"komi = 7.5.1\n", {"bad.cfg:1", "'komi'", "'7.5.1'", "not a number"}},
      {"komi = 51\n", {"bad.cfg:1", "'komi'", "'51'", "out of range [-50, 50]"}},
      {"komi = nan\n", {"bad.cfg:1", "'komi'", "'nan'"}},
      {"verbose = maybe\n", {"bad.cfg:1", "'verbose'", "'maybe'", "not a boolean"}},
      {"[rules]\nko = bogus\n",
       {"bad.cfg:2", "'rules.ko'", "'bogus'", "is not one of simple, positional"}},
      {"num_games\n", {"bad.cfg:1", "expected 'key = value'"}},
      {"[rules\n", {"bad.cfg:1", "section"}},
      {"num_games = 1\nnum_games = 2\n", {"bad.cfg:2", "already set at", "bad.cfg:1"}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const std::string path = dir.Write("bad.cfg", c.text);
    const std::string message = ConfigErrorOf([&] { ApplyConfigFile(config, path); });
    for (const std::string& part : c.expected) {
      CAPTURE(part);
      CHECK(message.find(part) != std::string::npos);
    }
  }
}

TEST_CASE("config: command-line errors name the argument, key and value") {
  const ConfigSpec spec = TestSpec();
  Config config(spec);
  std::string message = ConfigErrorOf([&] { Parse(spec, config, {"--set", "rules.ko=bogus"}); });
  CHECK(message == "--set: key 'rules.ko': value 'bogus' is not one of simple, positional");

  message = ConfigErrorOf([&] { Parse(spec, config, {"--num-games=200"}); });
  CHECK(message.find("--num-games") != std::string::npos);
  CHECK(message.find("'200'") != std::string::npos);
  CHECK(message.find("out of range [0, 100]") != std::string::npos);

  message = ConfigErrorOf([&] { Parse(spec, config, {"--set", "no_such_key=1"}); });
  CHECK(message == "--set: unknown key 'no_such_key'");

  message = ConfigErrorOf([&] { Parse(spec, config, {"--set", "num_games"}); });
  CHECK(message.find("--set") != std::string::npos);
  CHECK(message.find("'num_games'") != std::string::npos);

  message = ConfigErrorOf([&] { Parse(spec, config, {"--no-such-flag", "1"}); });
  CHECK(message.find("no-such-flag") != std::string::npos);

  // Abbreviations are not guessed.
  message = ConfigErrorOf([&] { Parse(spec, config, {"--max-games", "1"}); });
  CHECK(message.find("max-games") != std::string::npos);

  message = ConfigErrorOf([&] { Parse(spec, config, {"stray"}); });
  CHECK(message.find("'stray'") != std::string::npos);
  const CommandLine line = Parse(spec, config, {"one", "--num-games", "3", "two"}, true);
  CHECK(line.positional == std::vector<std::string>{"one", "two"});

  // Nothing was applied by the failed parses.
  CHECK(config.GetInt("num_games") == 3);
  CHECK(config.GetString("rules.ko") == "simple");
}

TEST_CASE("config: a missing config file is an error naming it") {
  const ConfigSpec spec = TestSpec();
  Config config(spec);
  const std::string missing =
      (fs::temp_directory_path() / fs::unique_path("tengen-missing-%%%%-%%%%.cfg")).string();
  CHECK_THROWS_AS(ApplyConfigFile(config, missing), IoError);
  const std::string message = ConfigErrorOf([&] { Parse(spec, config, {"--config", missing}); });
  CHECK(message.find(missing) != std::string::npos);
  CHECK(message.find("--config") != std::string::npos);
}

TEST_CASE("config: --help") {
  const ConfigSpec spec = TestSpec();
  Config config(spec);
  // With --help nothing is applied, so a missing file or bad value does not hide the help.
  const CommandLine line =
      Parse(spec, config, {"--num-games", "1000", "--help", "--config", "/nonexistent.cfg"});
  CHECK(line.help_requested);
  CHECK(config.GetInt("num_games") == 10);

  std::ostringstream help;
  spec.PrintHelp(help);
  const std::string text = help.str();
  for (const char* part : {"tengen-test",
                           "A program that exists only in tests.",
                           "--help",
                           "--config",
                           "--set",
                           "--num-games",
                           "num_games",
                           "'10'",
                           "[0, 100]",
                           "games to play",
                           "--komi",
                           "'7.5'",
                           "[-50, 50]",
                           "--verbose",
                           "'false'",
                           "--model-dir",
                           "'models'",
                           "--rules.ko",
                           "rules.ko",
                           "'simple'",
                           "simple, positional",
                           "--max-games-total",
                           "max_games_total",
                           "'1000'",
                           "[0, 1000000]"}) {
    CAPTURE(part);
    CHECK(text.find(part) != std::string::npos);
  }
}

TEST_CASE("config: --print-config prints effective values, sections and command line included") {
  const ConfigSpec spec = TestSpec();
  TempDir dir;
  const std::string path = dir.Write("test.cfg", "num_games = 20\n[rules]\nko = positional\n");
  Config config(spec);
  const CommandLine line = Parse(spec, config,
                                 {"--config", path, "--print-config", "rules.ko", "--num-games",
                                  "30", "--print-config", "num-games", "--print-config", "komi"});
  CHECK(line.print_config == std::vector<std::string>{"rules.ko", "num_games", "komi"});
  std::ostringstream out;
  CHECK(AnswerHelpOrPrintConfig(spec, line, config, out));
  CHECK(out.str() == "positional\n30\n7.5\n");

  Config plain(spec);
  std::ostringstream none;
  CHECK_FALSE(AnswerHelpOrPrintConfig(spec, Parse(spec, plain, {"--num-games", "3"}), plain, none));
  CHECK(none.str().empty());

  Config other(spec);
  const std::string message = ConfigErrorOf([&] {
    Parse(spec, other, {"--print-config", "no_such_key"});
  });
  CHECK(message.find("no_such_key") != std::string::npos);
  CHECK(message.find("--print-config") != std::string::npos);
}

TEST_CASE("config: declarations are checked") {
  ConfigSpec spec("tengen-test");
  spec.Int("a", 1, 0, 2, "");
  CHECK_THROWS_AS(spec.Int("a", 1, 0, 2, ""), CheckError);
  CHECK_THROWS_AS(spec.Int("b", 5, 0, 2, ""), CheckError);
  CHECK_THROWS_AS(spec.Bool("has-dash", false, ""), CheckError);
  CHECK_THROWS_AS(spec.Choice("c", "x", {"y", "z"}, ""), CheckError);
  CHECK_THROWS_AS(spec.String("help", "", ""), CheckError);
  CHECK(spec.Find("a") != nullptr);
  CHECK(spec.Find("b") == nullptr);
}

}  // namespace
}  // namespace tengen
