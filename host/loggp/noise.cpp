// OS noise in the LogGP model: traces read or generated, phases, detours (noise.h).
#include "loggp/noise.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <random>
#include <sstream>

#include "io/input_file.h"
#include "ppsim/errors.h"

namespace ppsim::loggp {

namespace {

constexpr double kMaxNs = 4611686018427387904.0;  // 2^62: every time stays below the engine's limit
constexpr uint64_t kMaxEntries = uint64_t(1) << 24;

// A line of the trace as a message quotes it: at most 60 characters (a line may be a gigabyte).
std::string quoted_line(const std::string& line) { return "'" + (line.size() > 60 ? line.substr(0, 57) + "..." : line) + "'"; }

// A number of ns at the front of `p` (skipping blanks); false where there is none.
bool read_ns(const char*& p, double& x) {
  while (*p == ' ' || *p == '\t') ++p;
  if (*p == '\0') return false;
  char* end = nullptr;
  errno = 0;
  x = std::strtod(p, &end);
  if (end == p || errno == ERANGE) return false;
  p = end;
  return true;
}

// splitmix64: a well-mixed 64-bit value of its argument.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
double unit(uint64_t x) { return double(x >> 11) * 0x1p-53; }  // in [0, 1)

// How many periods of `period` ns a generated trace spans: at least 1 s and 64 periods.
uint64_t periods_of(double period) {
  const double n = std::max(64.0, std::ceil(1e9 / period));
  return uint64_t(std::min(n, double(kMaxEntries)));
}

}  // namespace

NoiseTrace read_noise_trace(const std::string& path, bool loggopsim_reader) {
  std::string text;
  try {
    text = read_input_file(path);
  } catch (const InputFileError& e) {
    throw NoiseError(std::string("--noise-trace ") + e.what());
  }
  NoiseTrace t;
  t.source = "trace " + path;
  int number = 0;
  bool last_is_data_without_newline = false;
  // Line by line as std::getline reads them: a last line without a newline is a line too.
  for (size_t at = 0; at < text.size();) {
    const size_t newline = text.find('\n', at);
    const bool had_newline = newline != std::string::npos;
    std::string line = text.substr(at, had_newline ? newline - at : std::string::npos);
    at = had_newline ? newline + 1 : text.size();
    ++number;
    last_is_data_without_newline = false;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t first = line.find_first_not_of(" \t");
    if (!line.empty() && line[0] == '#') continue;
    if (first == std::string::npos || line[first] == '#') {
      // LogGOPSim's reader skips only comments that start the line; it reads any other line it
      // cannot parse as the entry before it again (a first such line as 0, 0).
      if (loggopsim_reader) {
        t.start.push_back(t.start.empty() ? 0 : t.start.back());
        t.length.push_back(t.length.empty() ? 0 : t.length.back());
      }
      continue;
    }
    const std::string where = "--noise-trace " + path + ", line " + std::to_string(number) + ": ";
    const char* p = line.c_str();
    double s = 0, d = 0;
    if (!read_ns(p, s) || !read_ns(p, d)) throw NoiseError(where + "expected `start<TAB>duration` in ns, got " + quoted_line(line));
    while (*p == ' ' || *p == '\t') ++p;
    if (*p != '\0') throw NoiseError(where + "unexpected text after the duration: " + quoted_line(line));
    if (!(s >= 0 && d >= 0 && s < kMaxNs && d < kMaxNs))
      throw NoiseError(where + "start and duration must be numbers of ns from 0 to 2^62, got " + real_text(s) + " and " + real_text(d));
    const uint64_t start = uint64_t(std::llround(s)), length = uint64_t(std::llround(d));
    if (!t.start.empty() && start < t.start.back())
      throw NoiseError(where + "starts must not decrease (" + std::to_string(start) + " after " + std::to_string(t.start.back()) + ")");
    if (t.start.size() >= kMaxEntries) throw NoiseError("--noise-trace " + path + ": more than 2^24 detours");
    t.start.push_back(start);
    t.length.push_back(length);
    last_is_data_without_newline = !had_newline;
  }
  if (t.start.size() < 2) throw NoiseError("--noise-trace " + path + ": needs at least 2 detours (the last one's start is the trace's period)");
  if (t.start.back() == 0) throw NoiseError("--noise-trace " + path + ": the last detour starts at 0, so the trace has no length");
  if (loggopsim_reader && !last_is_data_without_newline) {
    // LogGOPSim reads once more at the end of the file and keeps the last entry's values again.
    t.start.push_back(t.start.back());
    t.length.push_back(t.length.back());
  }
  return t;
}

NoiseTrace periodic_noise(double hz, uint64_t detour) {
  if (!(hz >= 1e-6) || !(hz <= 1e8)) throw NoiseError("--noise periodic: the frequency must be from 1e-6 to 1e8 Hz, got " + real_text(hz));
  const double period = std::round(1e9 / hz);
  if (double(detour) >= period)
    throw NoiseError("--noise periodic: a detour of " + std::to_string(detour) + " ns does not fit in a period of " + real_text(period) +
                     " ns (" + real_text(hz) + " Hz)");
  NoiseTrace t;
  std::ostringstream name;
  name << "periodic " << hz << " Hz x " << detour << " ns";
  t.source = name.str();
  const uint64_t n = periods_of(period);
  for (uint64_t k = 0; k <= n; ++k) {
    t.start.push_back(k * uint64_t(period));
    t.length.push_back(detour);
  }
  return t;
}

NoiseTrace random_noise(double rate, double mean, uint64_t seed) {
  if (!(rate >= 1e-6) || !(rate <= 1e8)) throw NoiseError("--noise random: the rate must be from 1e-6 to 1e8 per s, got " + real_text(rate));
  if (!(mean >= 0) || !(mean < 1e12)) throw NoiseError("--noise random: the mean detour must be from 0 to 1e12 ns, got " + real_text(mean));
  NoiseTrace t;
  std::ostringstream name;
  name << "random " << rate << " per s x " << mean << " ns mean, seed " << seed;
  t.source = name.str();
  const double gap = 1e9 / rate;
  const uint64_t n = periods_of(gap);
  uint64_t state = mix(seed ^ 0x6e6f697365ull);  // a stream of its own ("noise"), apart from the phases
  auto exponential = [&](double m) { return -std::log1p(-unit(state = mix(state))) * m; };
  double at = 0;
  for (uint64_t k = 0; k < n; ++k) {
    t.start.push_back(uint64_t(std::llround(at)));
    t.length.push_back(uint64_t(std::llround(exponential(mean))));
    at += std::max(1.0, exponential(gap));
    if (at >= kMaxNs / 4) break;
  }
  t.start.push_back(std::max(uint64_t(std::llround(at)), t.start.back() + 1));  // the first detour of the next period
  t.length.push_back(t.length.front());
  return t;
}

Noise::Noise(const NoiseSpec& spec, uint32_t hosts) : t_(*spec.trace), spec_(spec) {
  // Buckets of a power of two ns, about as many as the trace's entries (at most 2^24): a lookup
  // searches one bucket's entries instead of the whole trace (a binary search was 14 % of a
  // co-scheduled run at 2^18).
  const std::vector<uint64_t>& s = t_.start;
  const uint64_t want = std::min<uint64_t>(uint64_t{1} << 24, std::max<uint64_t>(1, s.size()));
  while (shift_ < 63 && (t_.period() >> shift_) > want) ++shift_;
  const uint64_t buckets = (t_.period() >> shift_) + 2;
  after_.resize(size_t(buckets));
  size_t i = 0;
  for (uint64_t b = 0; b < buckets; ++b) {
    const uint64_t from = b << shift_;
    while (i < s.size() && s[i] <= from) ++i;
    after_[size_t(b)] = uint32_t(i);
  }
  period_ = t_.period();
  // The quiet buckets: all of them, less those where an entry starts or runs.
  while ((period_ >> quiet_shift_) >= (uint64_t(1) << 20)) ++quiet_shift_;
  const uint64_t quiet_buckets = (period_ >> quiet_shift_) + 1;
  quiet_.assign(size_t((quiet_buckets + 63) / 64), ~uint64_t(0));
  quiet_.push_back(0);  // (read beside the last word, never for a bucket of its own)
  for (size_t i = 0; i < s.size(); ++i) {
    const uint64_t from = s[i] >> quiet_shift_, len = t_.length[i];
    const uint64_t to = std::min(quiet_buckets - 1, std::max(from, len ? (s[i] + len - 1) >> quiet_shift_ : from));
    for (uint64_t b = from; b <= to; ++b) quiet_[size_t(b >> 6)] &= ~(uint64_t(1) << (b & 63));
  }
  const double period = double(t_.period());
  if (spec.phases == NoisePhases::ppsim) {
    common_ = uint64_t(unit(mix(spec.seed)) * period);
    if (!spec.cosched) keep_phases(hosts, [&](uint32_t h) { return ppsim_phase(h); });  // (drawn once: a lookup drew its processor's again, 2 % of a run)
    return;
  }
  std::mt19937 draw(static_cast<std::mt19937::result_type>(spec.seed));
  auto next = [&] { return uint64_t(double(draw()) / double(std::mt19937::max()) * period); };
  common_ = next();
  if (!spec.cosched) keep_phases(hosts, [&](uint32_t) { return next(); });
}

template <class Draw>
void Noise::keep_phases(uint32_t hosts, Draw&& draw) {
  if (t_.period() >> 32) {
    phase_.resize(hosts);
    for (uint32_t h = 0; h < hosts; ++h) phase_[h] = draw(h);
  } else {  // (a phase is below the period)
    phase32_.resize(hosts);
    for (uint32_t h = 0; h < hosts; ++h) phase32_[h] = uint32_t(draw(h));
  }
}

uint64_t Noise::ppsim_phase(uint32_t h) const { return uint64_t(unit(mix(spec_.seed ^ mix(uint64_t(h) + 1))) * double(t_.period())); }

size_t Noise::entry_after(uint64_t at) const {
  const size_t b = size_t(at >> shift_);
  const std::vector<uint64_t>& s = t_.start;
  size_t i = after_[b];
  const size_t end = after_[b + 1];
  if (end - i > 8) return size_t(std::upper_bound(s.begin() + std::ptrdiff_t(i), s.begin() + std::ptrdiff_t(end), at) - s.begin());
  while (i < end && s[i] <= at) ++i;  // (a bucket holds about one entry: a scan beats the search)
  return i;
}

uint64_t Noise::detour_at(uint64_t at, uint64_t len) const {
  const std::vector<uint64_t>& s = t_.start;
  const std::vector<uint64_t>& d = t_.length;
  const size_t last = s.size() - 1;
  if (len >= s.back())
    throw NoiseError("an operation of " + std::to_string(len) + " ns is not shorter than the noise trace's period (" + std::to_string(s.back()) +
                     " ns): give a longer trace");
  uint64_t noise = 0;
  size_t pos = 0;
  if (at > s[0]) {  // the last entry starting at or before `at` (LogGOPSim: none when at <= the first start)
    pos = entry_after(at) - 1;
    const uint64_t end_of = s[pos] + d[pos];
    if (end_of > at) noise = end_of - at;
  }
  uint64_t end = at + len;
  if (pos == last) {
    end -= s.back();
    pos = 0;
  }
  while (end > s[pos + 1]) {
    ++pos;
    noise = add_capped(noise, d[pos]);
    if (pos == last) {
      end -= s.back();
      pos = 0;
    }
  }
  return noise;
}

}  // namespace ppsim::loggp
