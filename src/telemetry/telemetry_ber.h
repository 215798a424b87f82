// Link rate and bit error ratio (BER): a port's active speed and width (from the inventory's
// active_speed/active_width or the secondary telemetry's Link_speed_active/Link_width_active) as
// bits per second, and the derived observation SymbolBER = symbol errors / bits the link carried.
// Units are explicit: a LinkRate is in Gb/s per lane times lanes; a BER is a dimensionless ratio
// (errors per bit, e.g. 1e-12), never a count. Pure functions and plain values; thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

namespace ufmr {

struct LinkRate {
  float lane_gbps = 0;  // nominal data rate of one lane, Gb/s
  uint8_t lanes = 0;    // active width: 1, 2, 4, 8 or 12
  bool known() const { return lane_gbps > 0 && lanes > 0; }
  double bits_per_second() const { return static_cast<double>(lane_gbps) * 1e9 * lanes; }
};

// Per-lane Gb/s for an InfiniBand speed: SDR 2.5, DDR 5, QDR 10, FDR10 10, FDR 14, EDR 25,
// HDR 50, NDR 100, XDR 200 (any case); or a number with an optional G/Gb/s/Gbps unit, taken as
// per lane when it is at most 250 (UFM versions differ here: unverified). 0 when unknown.
double ParseLaneRateGbps(std::string_view speed);
// Lanes for an active width: "4x", "4X", "4" (1, 2, 4, 8 or 12). 0 when unknown.
int ParseLaneCount(std::string_view width);
// Both, or an unknown LinkRate.
LinkRate ParseLinkRate(std::string_view speed, std::string_view width);

// The derived counter name rules use, and the counters it is derived from.
inline constexpr std::string_view kSymbolBerCounter = "SymbolBER";
bool IsSymbolErrorCounter(std::string_view counter);  // SymbolErrorCounter[Extended]

// Symbol errors / (bits per second x seconds): the BER of one window. 0 if the rate is unknown
// or the interval is not positive.
double SymbolBer(double errors, double interval_s, const LinkRate& rate);

// The rules engine compares rates: delta / interval_s x per. A SymbolBER observation carries
// value = BER and delta = BER x interval_s / kSymbolBerPerS, so a counter rule with the default
// `per` (1m = kSymbolBerPerS seconds) compares the BER itself:
//   counter: SymbolBER, rate: {above: 1e-12}   # fires when BER > 1e-12 (or: ber: {above: ...})
inline constexpr double kSymbolBerPerS = 60;

}  // namespace ufmr
