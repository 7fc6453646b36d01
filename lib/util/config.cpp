#include "util/config.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <utility>

#include <boost/program_options.hpp>

#include "util/error.h"
#include "util/publish.h"
#include "util/text.h"
#include "util/version.h"

namespace tengen {
namespace {

namespace po = boost::program_options;

// Command-line options that are not config keys. Declared keys may not use these names.
constexpr const char* kHelpOption = "help";
constexpr const char* kConfigOption = "config";
constexpr const char* kSetOption = "set";
constexpr const char* kPrintConfigOption = "print-config";
// Boost routes positional arguments to a named option; the name cannot clash with a key
// because keys may not start with an underscore.
constexpr const char* kPositionalOption = "_positional";

std::string Replace(std::string text, char from, char to) {
  for (char& c : text) {
    if (c == from) c = to;
  }
  return text;
}

// The canonical key for either spelling: flags use dashes where keys use underscores.
std::string CanonicalKey(const std::string& key) { return Replace(key, '-', '_'); }
std::string FlagName(const std::string& key) { return Replace(key, '_', '-'); }

// Shortest text that reads back as exactly `value`, so that help shows 0.1 and not
// 0.10000000000000001.
std::string FormatDouble(double value) {
  char buffer[64];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  return buffer;
}

std::string FormatBound(const OptionSpec& spec, double bound) {
  if (spec.type == OptionType::kInt) {
    // Int bounds were int64 values; a cast back is exact for every bound a program declares
    // (|bound| < 2^53) and saturates sensibly for the int64 extremes.
    if (bound >= 9.2e18) return std::to_string(INT64_MAX);
    if (bound <= -9.2e18) return std::to_string(INT64_MIN);
    return std::to_string(static_cast<int64_t>(bound));
  }
  return FormatDouble(bound);
}

std::string JoinChoices(const std::vector<std::string>& choices) {
  std::string joined;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (i > 0) joined += ", ";
    joined += choices[i];
  }
  return joined;
}

const char* TypeName(OptionType type) {
  switch (type) {
    case OptionType::kInt:
      return "INT";
    case OptionType::kDouble:
      return "NUMBER";
    case OptionType::kBool:
      return "BOOL";
    case OptionType::kString:
      return "STRING";
    case OptionType::kChoice:
      return "CHOICE";
  }
  return "VALUE";
}

[[noreturn]] void ThrowBadValue(const OptionSpec& spec, const std::string& value,
                                const std::string& origin, const std::string& problem) {
  throw ConfigError(origin + ": key '" + spec.key + "': value '" + value + "' " + problem);
}

// Strict int64: optional sign and digits only, nothing before or after.
bool ParseInt(const std::string& text, int64_t* out, bool* overflow) {
  *overflow = false;
  if (text.empty()) return false;
  const size_t digits_at = (text[0] == '-' || text[0] == '+') ? 1 : 0;
  if (digits_at >= text.size()) return false;
  for (size_t i = digits_at; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
  }
  errno = 0;
  const long long value = std::strtoll(text.c_str(), nullptr, 10);
  if (errno == ERANGE) {
    *overflow = true;
    return false;
  }
  *out = value;
  return true;
}

// Strict finite double: strtod must consume everything and the text may not start with
// whitespace (strtod would skip it); nan and inf are refused.
bool ParseDouble(const std::string& text, double* out) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(value)) {
    return false;
  }
  *out = value;
  return true;
}

bool ParseBool(const std::string& text, bool* out) {
  std::string lower = text;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "true" || lower == "1" || lower == "yes" || lower == "on") {
    *out = true;
    return true;
  }
  if (lower == "false" || lower == "0" || lower == "no" || lower == "off") {
    *out = false;
    return true;
  }
  return false;
}

// Checks `value` against the declaration and returns its canonical text (what the getters
// parse back). Throws ConfigError naming key, value and origin.
std::string Validate(const OptionSpec& spec, const std::string& value, const std::string& origin) {
  const std::string range =
      "[" + FormatBound(spec, spec.min) + ", " + FormatBound(spec, spec.max) + "]";
  switch (spec.type) {
    case OptionType::kInt: {
      int64_t parsed = 0;
      bool overflow = false;
      if (!ParseInt(value, &parsed, &overflow)) {
        ThrowBadValue(spec, value, origin,
                      overflow ? "is out of range " + range : std::string("is not an integer"));
      }
      const double as_double = static_cast<double>(parsed);
      if (as_double < spec.min || as_double > spec.max) {
        ThrowBadValue(spec, value, origin, "is out of range " + range);
      }
      return std::to_string(parsed);
    }
    case OptionType::kDouble: {
      double parsed = 0;
      if (!ParseDouble(value, &parsed)) ThrowBadValue(spec, value, origin, "is not a number");
      if (parsed < spec.min || parsed > spec.max) {
        ThrowBadValue(spec, value, origin, "is out of range " + range);
      }
      return value;
    }
    case OptionType::kBool: {
      bool parsed = false;
      if (!ParseBool(value, &parsed)) {
        ThrowBadValue(spec, value, origin, "is not a boolean (true/false, 1/0, yes/no, on/off)");
      }
      return parsed ? "true" : "false";
    }
    case OptionType::kChoice:
      for (const std::string& choice : spec.choices) {
        if (choice == value) return value;
      }
      ThrowBadValue(spec, value, origin, "is not one of " + JoinChoices(spec.choices));
    case OptionType::kString:
      return value;
  }
  return value;
}

// The declared default, formatted for help and error messages.
std::string DescribeRange(const OptionSpec& spec) {
  switch (spec.type) {
    case OptionType::kInt:
    case OptionType::kDouble:
      return ", range [" + FormatBound(spec, spec.min) + ", " + FormatBound(spec, spec.max) + "]";
    case OptionType::kChoice:
      return ", one of " + JoinChoices(spec.choices);
    case OptionType::kBool:
    case OptionType::kString:
      break;
  }
  return "";
}

}  // namespace

ConfigSpec::ConfigSpec(std::string program_name, std::string summary)
    : program_name_(std::move(program_name)), summary_(std::move(summary)) {}

ConfigSpec& ConfigSpec::Int(const std::string& key, int64_t def, int64_t min, int64_t max,
                            const std::string& help) {
  OptionSpec spec;
  spec.key = key;
  spec.type = OptionType::kInt;
  spec.default_value = std::to_string(def);
  spec.min = static_cast<double>(min);
  spec.max = static_cast<double>(max);
  spec.help = help;
  return Add(std::move(spec));
}

ConfigSpec& ConfigSpec::Double(const std::string& key, double def, double min, double max,
                               const std::string& help) {
  OptionSpec spec;
  spec.key = key;
  spec.type = OptionType::kDouble;
  spec.default_value = FormatDouble(def);
  spec.min = min;
  spec.max = max;
  spec.help = help;
  return Add(std::move(spec));
}

ConfigSpec& ConfigSpec::Bool(const std::string& key, bool def, const std::string& help) {
  OptionSpec spec;
  spec.key = key;
  spec.type = OptionType::kBool;
  spec.default_value = def ? "true" : "false";
  spec.help = help;
  return Add(std::move(spec));
}

ConfigSpec& ConfigSpec::String(const std::string& key, const std::string& def,
                               const std::string& help) {
  OptionSpec spec;
  spec.key = key;
  spec.type = OptionType::kString;
  spec.default_value = def;
  spec.help = help;
  return Add(std::move(spec));
}

ConfigSpec& ConfigSpec::Choice(const std::string& key, const std::string& def,
                               const std::vector<std::string>& choices, const std::string& help) {
  OptionSpec spec;
  spec.key = key;
  spec.type = OptionType::kChoice;
  spec.default_value = def;
  spec.choices = choices;
  spec.help = help;
  return Add(std::move(spec));
}

// A bad declaration is a bug in the program, not a user error, hence CHECKs.
ConfigSpec& ConfigSpec::Add(OptionSpec spec) {
  TENGEN_CHECK(!spec.key.empty(), "empty config key");
  TENGEN_CHECK(spec.key[0] != '_' && spec.key[0] != '.', "bad config key '" + spec.key + "'");
  for (char c : spec.key) {
    // Dashes are the flag spelling of underscores, so a key must not contain them.
    TENGEN_CHECK(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.',
                 "bad character in config key '" + spec.key + "'");
  }
  TENGEN_CHECK(spec.key != kHelpOption && spec.key != kConfigOption && spec.key != kSetOption &&
                   FlagName(spec.key) != kPrintConfigOption,
               "config key '" + spec.key + "' is reserved for the command line");
  TENGEN_CHECK(Find(spec.key) == nullptr, "config key '" + spec.key + "' declared twice");
  if (spec.type == OptionType::kChoice) {
    TENGEN_CHECK(!spec.choices.empty(), "no choices for config key '" + spec.key + "'");
  }
  try {
    Validate(spec, spec.default_value, "declaration");
  } catch (const ConfigError& e) {
    TENGEN_CHECK(false, std::string("bad default: ") + e.what());
  }
  options_.push_back(std::move(spec));
  return *this;
}

const OptionSpec* ConfigSpec::Find(const std::string& key) const {
  const std::string canonical = CanonicalKey(key);
  for (const OptionSpec& spec : options_) {
    if (spec.key == canonical) return &spec;
  }
  return nullptr;
}

void ConfigSpec::PrintHelp(std::ostream& out) const {
  out << "Usage: " << program_name_
      << " [--config FILE]... [--set KEY=VALUE]... [--KEY-NAME VALUE]...\n";
  if (!summary_.empty()) out << "\n" << summary_ << "\n";
  out << "\nGeneral options:\n"
      << "  --help             print this help and exit\n"
      << "  --config FILE      read a .cfg file of `key = value` lines, `# comments` and\n"
      << "                     `[section]` headers; repeatable, applied in order\n"
      << "  --set KEY=VALUE    set any key below; repeatable\n"
      << "  --print-config KEY print KEY's effective value (after defaults, files and command\n"
      << "                     line) and exit; repeatable, one value per line\n"
      << "Values from the command line (--set or --KEY-NAME, in order) override config files,\n"
      << "which override the defaults. On the command line a key may be written with dashes\n"
      << "or underscores.\n";
  if (options_.empty()) return;
  out << "\nOptions (the flag is --KEY-NAME; in a .cfg file or --set write the key):\n";
  for (const OptionSpec& spec : options_) {
    // A bare boolean flag means true, and its value must be attached with '='.
    const bool is_bool = spec.type == OptionType::kBool;
    out << "  --" << FlagName(spec.key) << (is_bool ? "[=" : " ") << TypeName(spec.type)
        << (is_bool ? "]" : "") << "\n"
        << "      key " << spec.key << ", default '" << spec.default_value << "'"
        << DescribeRange(spec) << "\n";
    if (!spec.help.empty()) out << "      " << spec.help << "\n";
  }
}

Config::Config(const ConfigSpec& spec) : spec_(&spec) {
  for (const OptionSpec& option : spec.options()) {
    values_[option.key] = Value{Validate(option, option.default_value, "default"), "default"};
  }
}

void Config::Set(const std::string& key, const std::string& value, const std::string& origin) {
  const OptionSpec* spec = spec_->Find(key);
  if (spec == nullptr) throw ConfigError(origin + ": unknown key '" + key + "'");
  values_[spec->key] = Value{Validate(*spec, value, origin), origin};
}

// kString accepts kChoice too: both are read with GetString.
const OptionSpec& Config::SpecFor(const std::string& key, OptionType type) const {
  const OptionSpec* spec = spec_->Find(key);
  TENGEN_CHECK(spec != nullptr, "config key '" + key + "' was not declared");
  TENGEN_CHECK(
      spec->type == type || (type == OptionType::kString && spec->type == OptionType::kChoice),
      "config key '" + key + "' read with the wrong type");
  return *spec;
}

int64_t Config::GetInt(const std::string& key) const {
  const OptionSpec& spec = SpecFor(key, OptionType::kInt);
  return std::strtoll(values_.at(spec.key).text.c_str(), nullptr, 10);
}

double Config::GetDouble(const std::string& key) const {
  const OptionSpec& spec = SpecFor(key, OptionType::kDouble);
  return std::strtod(values_.at(spec.key).text.c_str(), nullptr);
}

bool Config::GetBool(const std::string& key) const {
  const OptionSpec& spec = SpecFor(key, OptionType::kBool);
  return values_.at(spec.key).text == "true";
}

std::string Config::GetString(const std::string& key) const {
  const OptionSpec& spec = SpecFor(key, OptionType::kString);
  return values_.at(spec.key).text;
}

std::string Config::Text(const std::string& key) const {
  const OptionSpec* spec = spec_->Find(key);
  TENGEN_CHECK(spec != nullptr, "config key '" + key + "' was not declared");
  return values_.at(spec->key).text;
}

std::string Config::Origin(const std::string& key) const {
  const OptionSpec* spec = spec_->Find(key);
  TENGEN_CHECK(spec != nullptr, "config key '" + key + "' was not declared");
  return values_.at(spec->key).origin;
}

std::string Config::Describe() const {
  std::ostringstream out;
  for (const OptionSpec& spec : spec_->options()) {
    const Value& value = values_.at(spec.key);
    out << spec.key << " = " << value.text << "  (" << value.origin << ")\n";
  }
  return out.str();
}

std::vector<std::pair<std::string, std::string>> Config::Values() const {
  std::vector<std::pair<std::string, std::string>> values;
  for (const OptionSpec& spec : spec_->options())
    values.emplace_back(spec.key, values_.at(spec.key).text);
  return values;
}

std::string StartupMessage(const std::string& program, const Config& config) {
  return program + " starting, code version " + CodeVersion() + "; options:\n" + config.Describe();
}

void ApplyConfigFile(Config& config, const std::string& path) {
  ApplyConfigText(config, ReadFile(path), path);
}

// '#' starts a comment wherever it appears, so values cannot contain '#'. A key set twice in
// one file is an error: it is almost always an edit that forgot the earlier line.
void ApplyConfigText(Config& config, const std::string& text, const std::string& origin) {
  std::istringstream in(text);
  std::string raw;
  std::string section;
  std::map<std::string, std::string> first_set_at;
  for (int line_number = 1; std::getline(in, raw); ++line_number) {
    const std::string where = StrCat(origin, ":", line_number);
    std::string line = raw.substr(0, raw.find('#'));
    line = Trim(line);
    if (line.empty()) continue;
    if (line.front() == '[') {
      if (line.back() != ']') {
        throw ConfigError(where + ": malformed section header '" + line + "'");
      }
      section = Trim(line.substr(1, line.size() - 2));
      continue;
    }
    const size_t equals = line.find('=');
    if (equals == std::string::npos) {
      throw ConfigError(where + ": expected 'key = value', got '" + line + "'");
    }
    const std::string bare_key = Trim(line.substr(0, equals));
    if (bare_key.empty()) throw ConfigError(where + ": missing key before '='");
    const std::string key = section.empty() ? bare_key : section + "." + bare_key;
    const std::string value = Trim(line.substr(equals + 1));
    config.Set(key, value, where);
    const std::string canonical = CanonicalKey(key);
    const auto [it, inserted] = first_set_at.emplace(canonical, where);
    if (!inserted) {
      throw ConfigError(where + ": key '" + key + "' was already set at " + it->second);
    }
  }
}

namespace {

// The flags of the command line: the fixed ones (--help, --config, --set, --print-config, the
// positional arguments) and one per key of `spec`.
void DescribeFlags(const ConfigSpec& spec, po::options_description* description) {
  description->add_options()(kHelpOption, "")(kConfigOption, po::value<std::string>(), "")(
      kSetOption, po::value<std::string>(), "")(kPrintConfigOption, po::value<std::string>(), "")(
      kPositionalOption, po::value<std::string>(), "");
  // Both spellings are registered so that --max-games-total and --max_games_total work.
  for (const OptionSpec& option : spec.options()) {
    const std::string flag = FlagName(option.key);
    std::vector<std::string> names = {flag};
    if (option.key != flag) names.push_back(option.key);
    for (const std::string& name : names) {
      // A bare boolean flag means true; "--flag=false" still works.
      po::typed_value<std::string>* value = po::value<std::string>();
      if (option.type == OptionType::kBool) value->implicit_value("true");
      description->add_options()(name.c_str(), value, "");
    }
  }
}

}  // namespace

CommandLine ParseCommandLine(const ConfigSpec& spec, int argc, const char* const argv[],
                             Config& config, bool allow_positional) {
  po::options_description description;
  DescribeFlags(spec, &description);
  po::positional_options_description positional;
  positional.add(kPositionalOption, -1);
  // No guessing: an abbreviated flag would silently mean another key once keys are added.
  const int style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;

  po::parsed_options parsed(&description);
  try {
    parsed = po::command_line_parser(argc, argv)
                 .options(description)
                 .positional(positional)
                 .style(style)
                 .run();
  } catch (const po::error& e) {
    throw ConfigError(e.what());
  }

  CommandLine result;
  std::vector<std::string> config_files;
  // (key, value, origin) in command-line order, applied after every config file.
  struct Assignment {
    std::string key;
    std::string value;
    std::string origin;
  };
  std::vector<Assignment> assignments;
  for (const po::option& option : parsed.options) {
    // Boost leaves the value list empty when a bare boolean flag takes its implicit value.
    const std::string value = option.value.empty() ? "true" : option.value.front();
    if (option.string_key == kHelpOption) {
      result.help_requested = true;
    } else if (option.string_key == kConfigOption) {
      config_files.push_back(value);
    } else if (option.string_key == kSetOption) {
      const size_t equals = value.find('=');
      if (equals == std::string::npos) {
        throw ConfigError("--set: expected KEY=VALUE, got '" + value + "'");
      }
      assignments.push_back({value.substr(0, equals), value.substr(equals + 1), "--set"});
    } else if (option.string_key == kPrintConfigOption) {
      if (spec.Find(value) == nullptr) {
        throw ConfigError("--print-config: unknown key '" + value + "' (--help lists the keys)");
      }
      result.print_config.push_back(spec.Find(value)->key);
    } else if (option.string_key == kPositionalOption) {
      if (!allow_positional) throw ConfigError("unexpected argument '" + value + "'");
      result.positional.push_back(value);
    } else {
      assignments.push_back({option.string_key, value, "--" + option.string_key});
    }
  }
  // With --help the program only prints help; values need not be valid or readable.
  if (result.help_requested) return result;

  for (const std::string& path : config_files) {
    try {
      ApplyConfigFile(config, path);
    } catch (const IoError& e) {
      throw ConfigError(std::string("--config: ") + e.what());
    }
  }
  for (const Assignment& assignment : assignments) {
    config.Set(assignment.key, assignment.value, assignment.origin);
  }
  return result;
}

bool ParseCommandLineOrHelp(const ConfigSpec& spec, int argc, const char* const argv[],
                            Config& config, std::ostream& help_out) {
  return !AnswerHelpOrPrintConfig(spec, ParseCommandLine(spec, argc, argv, config), config,
                                  help_out);
}

bool AnswerHelpOrPrintConfig(const ConfigSpec& spec, const CommandLine& command_line,
                             const Config& config, std::ostream& out) {
  if (command_line.help_requested) {
    spec.PrintHelp(out);
    return true;
  }
  for (const std::string& key : command_line.print_config) out << config.Text(key) << "\n";
  return !command_line.print_config.empty();
}

}  // namespace tengen
