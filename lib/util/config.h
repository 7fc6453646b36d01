#pragma once
// Program options. Every key is declared once in a ConfigSpec with its type, default, allowed
// range or choices and a help line; --help, validation and the getters all read that one
// declaration. Values come, in increasing priority, from the defaults, from `--config FILE`
// (.cfg files: `key = value` lines, `#` comments, `[section]` headers that prefix the keys
// below them as `section.key`), and from the command line: `--set key=value` (repeatable) or
// `--key-name value` for any declared key. Unknown keys, bad values and out-of-range values are
// ConfigErrors naming the key, the value and where it came from (file:line or the argument).

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace tengen {

enum class OptionType { kInt, kDouble, kBool, kString, kChoice };

struct OptionSpec {
  std::string key;  // "max_games_total", "rules.ko"
  OptionType type = OptionType::kString;
  std::string default_value;  // as it would be written in a .cfg file
  double min = 0;             // inclusive bounds for kInt / kDouble
  double max = 0;
  std::vector<std::string> choices;  // kChoice
  std::string help;
};

class ConfigSpec {
 public:
  explicit ConfigSpec(std::string program_name, std::string summary = "");

  ConfigSpec& Int(const std::string& key, int64_t def, int64_t min, int64_t max,
                  const std::string& help);
  ConfigSpec& Double(const std::string& key, double def, double min, double max,
                     const std::string& help);
  ConfigSpec& Bool(const std::string& key, bool def, const std::string& help);
  ConfigSpec& String(const std::string& key, const std::string& def, const std::string& help);
  ConfigSpec& Choice(const std::string& key, const std::string& def,
                     const std::vector<std::string>& choices, const std::string& help);

  // nullptr when the key is not declared. Accepts the flag spelling (dashes for underscores).
  const OptionSpec* Find(const std::string& key) const;
  const std::vector<OptionSpec>& options() const { return options_; }
  const std::string& program_name() const { return program_name_; }
  // The --help text: usage, summary and every option with type, default, range and help.
  void PrintHelp(std::ostream& out) const;

 private:
  ConfigSpec& Add(OptionSpec spec);
  std::string program_name_;
  std::string summary_;
  std::vector<OptionSpec> options_;
};

// Validated option values. Getters for undeclared keys or the wrong type are bugs (CheckError).
class Config {
 public:
  // Keeps a pointer to spec, which must outlive the Config.
  explicit Config(const ConfigSpec& spec);
  explicit Config(ConfigSpec&&) = delete;

  // Validates and stores; throws ConfigError naming key, value and origin ("x.cfg:12",
  // "--set", "--max-games-total").
  void Set(const std::string& key, const std::string& value, const std::string& origin);

  int64_t GetInt(const std::string& key) const;
  double GetDouble(const std::string& key) const;
  bool GetBool(const std::string& key) const;
  // kString and kChoice values.
  std::string GetString(const std::string& key) const;
  // The current value as it would be written in a .cfg file, for any type.
  std::string Text(const std::string& key) const;
  // Where the current value came from: "default", a file:line, or a command-line argument.
  std::string Origin(const std::string& key) const;
  // Every key with its value and origin, one per line, for the log at start-up.
  std::string Describe() const;
  // Every key with its value as text, in declaration order: the effective configuration, for
  // records that must say how something was made (a snapshot's training.json).
  std::vector<std::pair<std::string, std::string>> Values() const;

 private:
  struct Value {
    std::string text;
    std::string origin;
  };
  const OptionSpec& SpecFor(const std::string& key, OptionType type) const;
  const ConfigSpec* spec_;
  std::map<std::string, Value> values_;
};

// Applies a .cfg file; throws IoError when it cannot be read and ConfigError for a bad line.
void ApplyConfigFile(Config& config, const std::string& path);
// "<program> starting, code version <v>; options:" and Describe(): the first log line of
// every program, so that each log says which code and which settings produced it.
std::string StartupMessage(const std::string& program, const Config& config);
// Same for text already in memory; `origin` names it in errors (e.g. the file path).
void ApplyConfigText(Config& config, const std::string& text, const std::string& origin);

struct CommandLine {
  bool help_requested = false;
  std::vector<std::string> positional;  // non-option arguments, when the program allows them
  // Keys named by --print-config KEY (repeatable), in order: the program prints their effective
  // values, one per line, instead of running.
  std::vector<std::string> print_config;
};

// Parses argv with Boost.Program_options: --help, --config FILE (repeatable), --set key=value
// (repeatable) and --key-name VALUE for every declared key. Config files are applied first,
// in order, then the command-line values (so the command line wins). Positional arguments are
// an error unless allow_positional. Throws ConfigError for every usage error.
CommandLine ParseCommandLine(const ConfigSpec& spec, int argc, const char* const argv[],
                             Config& config, bool allow_positional = false);

// For mains that call ParseCommandLine themselves: prints the help or the --print-config values
// to `out` and returns true when the command line asked for either (the program then exits 0).
bool AnswerHelpOrPrintConfig(const ConfigSpec& spec, const CommandLine& command_line,
                             const Config& config, std::ostream& out);

// What every program's main does first: ParseCommandLine, and on --help print the help to
// `help_out` and return false (the program then exits 0); with --print-config KEY, print the
// effective value of each KEY (after defaults, config files and command line), one per line, to
// `help_out` and return false. Returns true when it should run.
bool ParseCommandLineOrHelp(const ConfigSpec& spec, int argc, const char* const argv[],
                            Config& config, std::ostream& help_out);

}  // namespace tengen
