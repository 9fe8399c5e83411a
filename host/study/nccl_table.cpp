// Reading nccl-tests rows (nccl_table.h): a line is a row when it begins with an unsigned integer,
// as only the rows do; every other line is someone else's (headers, NCCL INFO, MPI).
#include "study/nccl_table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>

#include "io/input_file.h"
#include "ppsim/errors.h"

namespace ppsim {

// Named: ppsim_study is compiled as a unity build, where anonymous namespaces of several files meet.
namespace nccl_text {
namespace {

// Bytes per element of the type names nccl-tests prints: NCCL 2's, NCCL 1's (char, int), the fp8
// types, and the usual other spellings. 0: unknown.
int element_bytes(std::string_view type) {
  static const std::pair<std::string_view, int> kTypes[] = {
      {"int8", 1},     {"uint8", 1},   {"char", 1},  {"f8e4m3", 1},   {"f8e5m2", 1}, {"e4m3", 1},   {"e5m2", 1},   {"fp8_e4m3", 1},
      {"fp8_e5m2", 1}, {"half", 2},    {"fp16", 2},  {"bfloat16", 2}, {"bf16", 2},   {"int32", 4},  {"uint32", 4}, {"int", 4},
      {"float", 4},    {"float32", 4}, {"int64", 8}, {"uint64", 8},   {"double", 8}, {"float64", 8}};
  for (const auto& [name, bytes] : kTypes)
    if (name == type) return bytes;
  return 0;
}

bool all_digits(std::string_view s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos; }

// A redop is a name (sum, none, premulsum...); what follows it are numbers, or N/A.
bool is_name(std::string_view s) { return !s.empty() && ((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')) && s != "N/A"; }

std::vector<std::string_view> tokens_of(std::string_view line) {
  std::vector<std::string_view> out;
  constexpr std::string_view kSpace = " \t\r\v\f";
  for (size_t at = line.find_first_not_of(kSpace); at != std::string_view::npos; at = line.find_first_not_of(kSpace, at)) {
    const size_t end = std::min(line.find_first_of(kSpace, at), line.size());
    out.push_back(line.substr(at, end - at));
    at = end;
  }
  return out;
}

std::string trimmed(std::string_view line) {
  constexpr std::string_view kSpace = " \t\r\v\f";
  const size_t first = line.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return "";
  return std::string(line.substr(first, line.find_last_not_of(kSpace) - first + 1));
}

// One line of the file, failing with its name and number.
struct Line {
  const std::string& name;
  int number;
  std::string_view text;

  [[noreturn]] void fail(const std::string& what) const { throw ConfigError(name + ":" + std::to_string(number) + ": " + what); }

  // A decimal integer (negative only where `negative_ok`: the root column's -1).
  int64_t whole(std::string_view token, const char* column, bool negative_ok = false) const {
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
    if (ec == std::errc::result_out_of_range) fail(std::string(column) + " '" + std::string(token) + "' is too large");
    if (ec != std::errc() || end != token.data() + token.size() || (v < 0 && !negative_ok))
      fail(std::string(column) + " '" + std::string(token) + "' is not a whole number");
    return v;
  }
  // A finite number, at least 0. from_chars reads the C locale's digits whatever the locale.
  double real(std::string_view token, const char* column) const {
    double v = 0;
    const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
    if (ec != std::errc() || end != token.data() + token.size() || !std::isfinite(v) || v < 0)
      fail(std::string(column) + " '" + std::string(token) + "' is not a number (a finite one, at least 0)");
    return v;
  }
  // One half of a row: time, algbw, busbw, then #wrong (a count), an error magnitude (old
  // format) or N/A, which are checked and not kept.
  void half(const std::vector<std::string_view>& t, size_t at, const char* which, double& time, double& algbw, double& busbw) const {
    const std::string w(which);
    time = real(t[at], (w + " time").c_str());
    if (time <= 0) fail(w + " time '" + std::string(t[at]) + "' is not positive");
    algbw = real(t[at + 1], (w + " algbw").c_str());
    busbw = real(t[at + 2], (w + " busbw").c_str());
    if (t[at + 3] != "N/A") real(t[at + 3], (w + " #wrong").c_str());
  }
};

NcclTestsRow read_row(const Line& l, const std::vector<std::string_view>& t) {
  NcclTestsRow r;
  r.line = l.number;
  if (t.size() < 3) l.fail("a row begins with a size, a count and a type: '" + trimmed(l.text) + "'");
  r.bytes = l.whole(t[0], "size");
  r.count = l.whole(t[1], "count");
  r.type = std::string(t[2]);
  const int element = element_bytes(r.type);
  if (element == 0)
    l.fail("unknown type '" + r.type +
           "' (int8, uint8, char, f8e4m3, f8e5m2, half, bfloat16, int32, uint32, int, float, int64, uint64, double)");
  size_t at = 3;
  if (at < t.size() && is_name(t[at])) r.redop = std::string(t[at++]);
  // What follows the redop decides whether a root is printed: 4 numbers a half, one or two halves,
  // and one more in front when there is a root (the old format has none).
  const size_t left = t.size() - at;
  if (left == 5 || left == 9) r.root = l.whole(t[at++], "root", true);
  else if (left != 4 && left != 8)
    l.fail("a row has 4 or 8 values after its type and redop (5 or 9 with a root), this one " + std::to_string(left) + ": '" +
           trimmed(l.text) + "'");
  l.half(t, at, "out-of-place", r.time_us, r.algbw, r.busbw);
  if (t.size() - at == 8) {
    r.has_in_place = true;
    l.half(t, at + 4, "in-place", r.in_place_time_us, r.in_place_algbw, r.in_place_busbw);
  }
  // all_reduce's size is count elements; all_gather's, reduce_scatter's and alltoall's is count
  // elements from every rank, a whole multiple of it.
  const bool fits = r.count == 0 ? r.bytes == 0
                                 : r.count <= std::numeric_limits<int64_t>::max() / element && r.bytes >= r.count * element &&
                                       r.bytes % (r.count * element) == 0;
  if (!fits)
    l.fail("size " + std::to_string(r.bytes) + " is not count " + std::to_string(r.count) + " × " + std::to_string(element) + " bytes (" +
           r.type + ") nor a whole multiple of it");
  return r;
}

}  // namespace
}  // namespace nccl_text

std::vector<NcclTestsRow> parse_nccl_tests_rows(std::string_view text, const std::string& name) {
  std::vector<NcclTestsRow> rows;
  int number = 0;
  for (size_t start = 0; start < text.size() || number == 0;) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const nccl_text::Line l{name, ++number, text.substr(start, end - start)};
    start = end + 1;
    const std::vector<std::string_view> t = nccl_text::tokens_of(l.text);
    if (!t.empty() && nccl_text::all_digits(t[0])) rows.push_back(nccl_text::read_row(l, t));
  }
  if (rows.empty())
    throw ConfigError(name +
                      ":1: no nccl-tests rows: no line begins with a whole number, as each row does (is it what all_reduce_perf printed?)");
  return rows;
}

std::vector<NcclTestsRow> read_nccl_tests_rows(const std::string& path) {
  std::string text;
  try {
    text = read_input_file(path);
  } catch (const InputFileError& e) {
    throw ConfigError(e.what());
  }
  return parse_nccl_tests_rows(text, path);
}

bool parse_measured_half(const std::string& text, MeasuredHalf& half) {
  if (text == "lower") half = MeasuredHalf::lower;
  else if (text == "out-of-place") half = MeasuredHalf::out_of_place;
  else if (text == "in-place") half = MeasuredHalf::in_place;
  else return false;
  return true;
}

MeasuredTime measured_time(const NcclTestsRow& r, MeasuredHalf half, const std::string& name) {
  if (half == MeasuredHalf::in_place && !r.has_in_place)
    throw ConfigError(name + ":" + std::to_string(r.line) + ": the row has no in-place half (--measured in-place)");
  const bool in_place = half == MeasuredHalf::in_place || (half == MeasuredHalf::lower && r.has_in_place && r.in_place_time_us < r.time_us);
  return in_place ? MeasuredTime{r.in_place_time_us, r.in_place_busbw, true} : MeasuredTime{r.time_us, r.busbw, false};
}

double geomean_error(const std::vector<double>& predicted, const std::vector<double>& measured) {
  if (predicted.size() != measured.size())
    throw std::invalid_argument("geomean_error: " + std::to_string(predicted.size()) + " predictions for " +
                                std::to_string(measured.size()) + " measurements");
  if (predicted.empty()) throw std::invalid_argument("geomean_error: no predictions");
  // Summed wider than double, so that n equal ratios give that ratio back exactly.
  long double sum = 0;
  for (size_t i = 0; i < predicted.size(); ++i) {
    const double p = predicted[i], m = measured[i];
    if (!(p > 0 && m > 0 && std::isfinite(p) && std::isfinite(m)))
      throw std::invalid_argument("geomean_error: row " + std::to_string(i) + " has prediction " + real_text(p) + " and measurement " +
                                  real_text(m) + " (both must be positive and finite)");
    // The ratio, rounded once (2m / m is 2 exactly); out of double's range, the logs' difference.
    const double ratio = p / m;
    sum += std::fabs(ratio > 0 && std::isfinite(ratio) ? std::log(ratio) : std::log(p) - std::log(m));
  }
  return std::exp(double(sum / static_cast<long double>(predicted.size()))) - 1;
}

}  // namespace ppsim
