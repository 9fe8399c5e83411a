// The readers of numbers every option and every list item goes through (usage.h).
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>

#include "study/usage.h"

namespace ppsim::study {

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

int64_t parse_bytes(std::string_view text, std::string_view option) {
  int shift = 0;
  std::string_view digits = text;
  if (!text.empty()) {
    switch (std::toupper(static_cast<unsigned char>(text.back()))) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      case 'T': shift = 40; break;
      default: break;
    }
    if (shift) digits.remove_suffix(1);
  }
  int64_t v = 0;
  if (!decimal_digits(digits, option, text, v))
    throw UsageError(quoted(option, text) + " is not a size in bytes (a whole number, or one with K, M, G or T: 8, 64K, 1M, 8G)");
  if (v > (std::numeric_limits<int64_t>::max() >> shift)) throw UsageError(quoted(option, text) + " is too large");
  return v << shift;
}

}  // namespace ppsim::study
