// What a study refuses before it runs anything: a request that cannot be read or that asks for
// what no run can be (UsageError), and the one way a number is read from text, the same for every
// option of the command line, every keyword of the Python module and every item of a list.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string_view>

namespace ppsim {

// A bad option or combination: one line on stderr, exit code 2 (the Python module's ConfigError).
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

namespace study {

// The readers of numbers. Empty text, a sign where none is allowed, leading zeros ("010": is it
// ten or eight?), trailing characters, overflow and non-finite values are refused with a
// UsageError naming `option` and the text.
// A whole number: decimal digits, or a power B^E ("2^10"), within 64 bits; a leading '-' when
// `negative_ok`.
int64_t parse_count(std::string_view text, std::string_view option, bool negative_ok = false);
// A finite decimal number: "1", "0.5", "-2", "1e-3" (no inf, nan, hex or spaces).
double parse_real(std::string_view text, std::string_view option);
// A size in bytes as nccl-tests reads its -b and -e: a whole number, or one followed by K, M, G or
// T (powers of 1024: "64K" is 65,536 bytes, "8G" 8 GiB); upper or lower case.
int64_t parse_bytes(std::string_view text, std::string_view option);

}  // namespace study
}  // namespace ppsim
