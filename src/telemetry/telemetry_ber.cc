#include "telemetry/telemetry_ber.h"

#include <cctype>
#include <charconv>
#include <string>

#include "base/text.h"

namespace ufmr {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

double ParseLaneRateGbps(std::string_view speed) {
  std::string s = AsciiLower(Trim(speed));
  struct Named {
    const char* name;
    double gbps;
  };
  static constexpr Named kNamed[] = {{"sdr", 2.5}, {"ddr", 5},    {"qdr", 10}, {"fdr10", 10},
                                     {"fdr", 14},  {"edr", 25},   {"hdr", 50}, {"ndr", 100},
                                     {"xdr", 200}, {"hdr100", 50}};
  for (const auto& n : kNamed) {
    if (s == n.name) return n.gbps;
  }
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end == s.data()) return 0;
  std::string_view unit =
      Trim(std::string_view(end, static_cast<size_t>(s.data() + s.size() - end)));
  if (!unit.empty() && unit != "g" && unit != "gb/s" && unit != "gbps" && unit != "gbit/s" &&
      unit != "gb") {
    return 0;
  }
  if (!(v > 0 && v <= 250)) return 0;
  return v;
}

int ParseLaneCount(std::string_view width) {
  std::string s = AsciiLower(Trim(width));
  if (!s.empty() && s.back() == 'x') s.pop_back();
  int v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return 0;
  return v == 1 || v == 2 || v == 4 || v == 8 || v == 12 ? v : 0;
}

LinkRate ParseLinkRate(std::string_view speed, std::string_view width) {
  double gbps = ParseLaneRateGbps(speed);
  int lanes = ParseLaneCount(width);
  if (gbps <= 0 || lanes <= 0) return LinkRate{};
  return LinkRate{static_cast<float>(gbps), static_cast<uint8_t>(lanes)};
}

bool IsSymbolErrorCounter(std::string_view counter) {
  return counter == "SymbolErrorCounterExtended" || counter == "SymbolErrorCounter";
}

double SymbolBer(double errors, double interval_s, const LinkRate& rate) {
  if (!rate.known() || !(interval_s > 0)) return 0;
  return errors / (rate.bits_per_second() * interval_s);
}

}  // namespace ufmr
