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

namespace {

std::string quoted(std::string_view option, std::string_view text) { return std::string(option) + " '" + std::string(text) + "'"; }

bool all_digits(std::string_view s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos; }

// Digits without a leading zero (but "0" itself), read into v; false when they are no such digits.
// Throws when they do not fit in 63 bits.
bool decimal_digits(std::string_view s, std::string_view option, std::string_view text, int64_t& v) {
  if (!all_digits(s)) return false;
  if (s.size() > 1 && s[0] == '0') throw UsageError(quoted(option, text) + ": write it without leading zeros (it is read in decimal)");
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) throw UsageError(quoted(option, text) + " is too large");
  return true;
}

}  // namespace

int64_t parse_count(std::string_view text, std::string_view option, bool negative_ok) {
  const std::string not_whole = quoted(option, text) + " is not a whole number (or a power B^E)";
  int64_t v = 0;
  if (negative_ok && !text.empty() && text[0] == '-') {
    if (!decimal_digits(text.substr(1), option, text, v)) throw UsageError(not_whole);
    return -v;
  }
  const size_t caret = text.find('^');
  if (caret == std::string_view::npos) {
    if (!decimal_digits(text, option, text, v)) throw UsageError(not_whole);
    return v;
  }
  int64_t base = 0, exp = 0;
  if (!decimal_digits(text.substr(0, caret), option, text, base) || !decimal_digits(text.substr(caret + 1), option, text, exp))
    throw UsageError(not_whole);
  int64_t r = 1;
  for (int64_t i = 0; i < exp && r != 0; ++i) {  // 0^E is 0, 1^E is 1 for any E
    if (base > 1 && r > std::numeric_limits<int64_t>::max() / base) throw UsageError(quoted(option, text) + " is too large");
    r *= base;
    if (base == 1) break;
  }
  return r;
}

double parse_real(std::string_view text, std::string_view option) {
  const std::string bad = quoted(option, text) + " is not a number";
  // [-]digits[.digits][(e|E)[+|-]digits], checked here: from_chars alone would take "inf", "nan"
  // and leading zeros.
  size_t at = text.empty() || text[0] != '-' ? 0 : 1;
  const size_t int_start = at;
  while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) ++at;
  const size_t int_digits = at - int_start;
  if (int_digits == 0) throw UsageError(bad);
  if (int_digits > 1 && text[int_start] == '0')
    throw UsageError(quoted(option, text) + ": write it without leading zeros (it is read in decimal)");
  auto digits_from = [&](size_t from) {
    size_t end = from;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
    if (end == from) throw UsageError(bad);
    return end;
  };
  if (at < text.size() && text[at] == '.') at = digits_from(at + 1);
  if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
    ++at;
    if (at < text.size() && (text[at] == '+' || text[at] == '-')) ++at;
    at = digits_from(at);
  }
  if (at != text.size()) throw UsageError(bad);
  double v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc::result_out_of_range || !std::isfinite(v)) throw UsageError(quoted(option, text) + " is out of range");
  if (ec != std::errc() || ptr != text.data() + text.size()) throw UsageError(bad);
  return v;
}

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
