// The command line's parser: the only unit that includes CLI11 (see command_line.h).
#include "command_line.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <deque>
#include <iostream>
#include <limits>

#include <CLI/CLI.hpp>

namespace ppsim::cli {

Command::Option& Command::add(const char* name, Kind kind, void* field, std::string description, bool shows_default) {
  Option o;
  o.name = name;
  o.kind = kind;
  o.field = field;
  o.description = std::move(description);
  o.shows_default = shows_default;
  options_.push_back(std::move(o));
  return options_.back();
}

void Command::text(const char* name, std::string& field, std::string description, bool shows_default) {
  add(name, Kind::text, &field, std::move(description), shows_default).default_text = field;
}

void Command::integer(const char* name, int64_t& field, std::string description, bool shows_default, int64_t lo, int64_t hi) {
  Option& o = add(name, Kind::int64, &field, std::move(description), shows_default);
  o.default_text = std::to_string(field);
  o.lo = lo;
  o.hi = hi;
}

void Command::integer(const char* name, int& field, std::string description, bool shows_default, int lo, int hi) {
  Option& o = add(name, Kind::int32, &field, std::move(description), shows_default);
  o.default_text = std::to_string(field);
  o.lo = lo;
  o.hi = hi;
}

void Command::real(const char* name, double& field, std::string description, bool shows_default) {
  char text[32];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, field);
  add(name, Kind::real, &field, std::move(description), shows_default).default_text = std::string(text, ec == std::errc() ? end : text);
}

void Command::flag(const char* name, bool& field, std::string description) { add(name, Kind::flag, &field, std::move(description), false); }

void Command::words(const char* name, std::vector<std::string>& field, int count, std::string description) {
  add(name, Kind::words, &field, std::move(description), false).count = count;
}

void Command::require(const char* name) {
  for (Option& o : options_)
    if (o.name == name) o.required = true;
}

bool Command::given(std::string_view name) const {
  return std::any_of(options_.begin(), options_.end(), [&](const Option& o) { return o.given && o.name == name; });
}

std::vector<std::string> Command::given_names() const {
  std::vector<std::string> names;
  for (const Option& o : options_)
    if (o.given) names.push_back(o.name);
  return names;
}

namespace {

const char* type_name(Command::Kind k) {
  switch (k) {
    case Command::Kind::int64:
    case Command::Kind::int32: return "INT";
    case Command::Kind::real: return "FLOAT";
    default: return "TEXT";
  }
}

// The raw words CLI11 collects for one option, until the readers convert them.
struct Raw {
  Command::Option* option = nullptr;
  CLI::Option* parsed = nullptr;
  std::string text;
  std::vector<std::string> words;
};

void declare(CLI::App& sub, Command& command, std::deque<Raw>& raws) {
  for (Command::Option& o : command.options()) {
    Raw& raw = raws.emplace_back();
    raw.option = &o;
    if (o.kind == Command::Kind::flag) {
      // (add_flag(name, description) would take the description for the flag's result variable,
      // and the help would show none)
      raw.parsed = sub.add_flag(o.name)->description(o.description);
    } else if (o.kind == Command::Kind::words) {
      raw.parsed = sub.add_option(o.name, raw.words, o.description)->expected(o.count);
    } else {
      raw.parsed = sub.add_option(o.name, raw.text, o.description)->type_name(type_name(o.kind));
      if (o.shows_default) raw.parsed->default_str(o.default_text);
    }
    if (o.required) raw.parsed->required();
  }
}

int64_t read_integer(const Command::Option& o, const std::string& text) {
  const int64_t v = parse_count(text, o.name, o.lo < 0);
  if (v < o.lo) throw UsageError(o.name + " must be at least " + std::to_string(o.lo) + " (got " + text + ")");
  if (v > o.hi) throw UsageError(o.name + " must be at most " + std::to_string(o.hi) + " (got " + text + ")");
  return v;
}

// Converts what was given into the fields, in the order the options were registered.
void convert(std::deque<Raw>& raws) {
  for (Raw& raw : raws) {
    Command::Option& o = *raw.option;
    o.given = raw.parsed->count() > 0;
    if (!o.given) continue;
    if (o.kind != Command::Kind::flag && o.kind != Command::Kind::words && raw.text.empty())
      throw UsageError(o.name + " is given an empty value");
    switch (o.kind) {
      case Command::Kind::text: *static_cast<std::string*>(o.field) = raw.text; break;
      case Command::Kind::int64: *static_cast<int64_t*>(o.field) = read_integer(o, raw.text); break;
      case Command::Kind::int32: *static_cast<int*>(o.field) = int(read_integer(o, raw.text)); break;
      case Command::Kind::real: *static_cast<double*>(o.field) = parse_real(raw.text, o.name); break;
      case Command::Kind::flag: *static_cast<bool*>(o.field) = true; break;
      case Command::Kind::words:
        for (const std::string& w : raw.words)
          if (w.empty()) throw UsageError(o.name + " is given an empty value");
        *static_cast<std::vector<std::string>*>(o.field) = raw.words;
        break;
    }
  }
}

}  // namespace

int parse_command_line(int argc, const char* const* argv, std::vector<Command>& commands, const std::string& description,
                       int* help_exit) {
  CLI::App app{description};
  app.require_subcommand(1);
  std::deque<Raw> raws;
  std::vector<CLI::App*> subs;
  for (Command& c : commands) {
    subs.push_back(app.add_subcommand(c.name(), c.description()));
    declare(*subs.back(), c, raws);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    *help_exit = app.exit(e);
    return -1;
  } catch (const CLI::CallForAllHelp& e) {
    *help_exit = app.exit(e);
    return -1;
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  convert(raws);
  for (size_t i = 0; i < subs.size(); ++i)
    if (subs[i]->parsed()) return int(i);
  throw UsageError("a subcommand is required");  // require_subcommand(1) has refused this already
}

void parse_options(Command& command, const std::vector<std::string>& args) {
  CLI::App app{"ppsim"};
  std::deque<Raw> raws;
  declare(*app.add_subcommand(command.name(), command.description()), command, raws);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  reversed.push_back(command.name());
  try {
    app.parse(reversed);
  } catch (const CLI::Error& e) {
    throw UsageError(e.what());
  }
  convert(raws);
}

}  // namespace ppsim::cli
