// fabric_history: writes a UFM event log (event.log) of a fat-tree fabric, for the replay
// benchmark (scripts/bench, bench/replay_bench.sh). The fabric: LEAVES leaf switches, each with
// HOSTS hosts (one HCA port each) and one link to each of SPINES spine switches. The mix of
// entries is the one measured on a production fabric's log: 55% GID address out of service
// (64), 20% symbol-error threshold (110, with "Peer info"), 10% link down (329), 10% link up
// (328), 5% the subnet manager's unhealthy port (702); one entry every INTERVAL seconds on
// average. A few links are bad (1%): they draw most of the errors and link-downs. With --storms,
// a switch reboots every 6 hours (907, its links down, 908 and its links up two minutes later),
// and once a day a storm takes 2,000 links down and up within ten seconds.
//
// The lines follow the forms of tests/fixtures (public UFM logs, sources there) without the
// "Site [default]" prefix of newer versions, so Imbue's find_problematic_events.py parses them
// too. Event 64's text is not taken from a public log (no public sample was found): neither tool
// has a rule for it, so only its length matters. Deterministic: the same arguments, the same
// bytes.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

namespace {

constexpr const char* kUsage =
    "usage: fabric_history --lines N [--leaves N] [--spines N] [--hosts N] [--interval S]\n"
    "                      [--storms] [--seed N] [--out FILE]\n";

struct Options {
  long long lines = 1000000;
  int leaves = 32;
  int spines = 16;
  int hosts = 16;  // per leaf
  double interval_s = 1.2;
  bool storms = false;
  unsigned long long seed = 1;
  const char* out = nullptr;
};

struct Rng {
  uint64_t s;
  uint64_t Next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  uint64_t Below(uint64_t n) { return Next() % n; }
  double Unit() { return static_cast<double>(Next() >> 11) / 9007199254740992.0; }
};

// One end of a link: a switch port (name, label, GUID, number) or a host's HCA port.
struct End {
  bool is_switch = true;
  int node = 0;  // leaf, spine or host index
  int port = 1;
};

struct Link {
  End a;  // the leaf's port
  End b;  // the host's or the spine's
  bool down = false;
};

struct Fabric {
  int leaves, spines, hosts;
  std::vector<Link> links;
  std::vector<int> bad;   // indexes of the bad links
  std::vector<int> down;  // indexes of the links down now
};

uint64_t LeafGuid(int l) { return 0xfc6a1c0300000000ULL + static_cast<uint64_t>(l) * 0x100; }
uint64_t SpineGuid(int s) { return 0x9c05910300000000ULL + static_cast<uint64_t>(s) * 0x100; }
uint64_t HostGuid(int h) { return 0xe41d2d0300000000ULL + static_cast<uint64_t>(h) * 2; }

// The switch-and-end identity of one end, in the event log's words.
struct Names {
  char node[32];   // "ib-leaf-0001", "gpu-node-00001"
  char label[24];  // "1/9/1" for switch port 17; "" for a host
  char guid[20];
  int number;
};

Names NamesOf(const Fabric& f, const End& e) {
  Names n{};
  n.number = e.port;
  if (!e.is_switch) {
    std::snprintf(n.node, sizeof(n.node), "gpu-node-%05d", e.node + 1);
    std::snprintf(n.guid, sizeof(n.guid), "%016llx",
                  static_cast<unsigned long long>(HostGuid(e.node)));
    return n;
  }
  const bool leaf = e.node < f.leaves;
  const int index = leaf ? e.node : e.node - f.leaves;
  std::snprintf(n.node, sizeof(n.node), leaf ? "ib-leaf-%04d" : "ib-spine-%03d", index + 1);
  std::snprintf(n.label, sizeof(n.label), "1/%d/%d", (e.port + 1) / 2, e.port % 2 ? 1 : 2);
  std::snprintf(n.guid, sizeof(n.guid), "%016llx",
                static_cast<unsigned long long>(leaf ? LeafGuid(index) : SpineGuid(index)));
  return n;
}

Fabric Build(const Options& o, Rng& rng) {
  Fabric f{o.leaves, o.spines, o.hosts, {}, {}, {}};
  f.links.reserve(static_cast<size_t>(o.leaves) * (o.hosts + o.spines));
  for (int l = 0; l < o.leaves; ++l) {
    for (int h = 0; h < o.hosts; ++h) {
      f.links.push_back({{true, l, h + 1}, {false, l * o.hosts + h, 1}});
    }
    for (int s = 0; s < o.spines; ++s) {
      f.links.push_back({{true, l, o.hosts + s + 1}, {true, o.leaves + s, l + 1}});
    }
  }
  const size_t bad = f.links.size() / 100 + 1;
  for (size_t i = 0; i < bad; ++i) f.bad.push_back(static_cast<int>(rng.Below(f.links.size())));
  return f;
}

class Writer {
 public:
  Writer(FILE* out, double interval_s, uint64_t seed)
      : out_(out), interval_s_(interval_s), rng_{seed * 0x9e3779b97f4a7c15ULL + 7} {}

  // Starts an entry at the next time (one every `interval_s` on average).
  void Next() { t_ += interval_s_ * 2 * rng_.Unit(); }
  // Starts an entry `dt` seconds after the last.
  void After(double dt) { t_ += dt; }
  void Line(const char* event_and_text) {
    const auto whole = static_cast<time_t>(t_);
    const int ms = static_cast<int>((t_ - static_cast<double>(whole)) * 1000);
    struct tm tm {};
    gmtime_r(&whole, &tm);
    char ts[32];
    std::strftime(ts, sizeof(ts), "%Y-%m-%d %H:%M:%S", &tm);
    std::fprintf(out_, "%s.%03d [%lld] %s\n", ts, ms, ++id_, event_and_text);
    ++lines_;
  }
  long long lines() const { return lines_; }
  double time() const { return t_; }

 private:
  FILE* out_;
  double interval_s_;
  Rng rng_;
  double t_ = 1793491200;  // 2026-11-01 00:00:00 UTC
  long long id_ = 0;
  long long lines_ = 0;
};

// "(Switch:ib-leaf-0001:1/9/1)fc6a1c0300000000:17" or "(Computer:gpu-node-00001 HCA-1)e41d...:1"
std::string LinkEnd(const Names& n, bool is_switch) {
  char b[128];
  if (is_switch) {
    std::snprintf(b, sizeof(b), "(Switch:%s:%s)%s:%d", n.node, n.label, n.guid, n.number);
  } else {
    std::snprintf(b, sizeof(b), "(Computer:%s HCA-1)%s:%d", n.node, n.guid, n.number);
  }
  return b;
}

void LinkEvent(Writer& w, const Fabric& f, const Link& l, bool down, unsigned serial) {
  const Names a = NamesOf(f, l.a), b = NamesOf(f, l.b);
  char line[512];
  std::snprintf(line, sizeof(line),
                "[%d] %s [Fabric_Topology] Link [Source %s_%d  TO Dest: %s_%d]: Link went %s: "
                "%s - %s, cable S/N: MT2330FT%05u",
                down ? 329 : 328, down ? "WARNING" : "INFO", a.guid, a.number, b.guid, b.number,
                down ? "down" : "up", LinkEnd(a, true).c_str(), LinkEnd(b, l.b.is_switch).c_str(),
                serial);
  w.Line(line);
}

void SymbolErrors(Writer& w, const Fabric& f, const Link& l) {
  const Names a = NamesOf(f, l.a), b = NamesOf(f, l.b);
  char peer[96];
  if (l.b.is_switch) {
    std::snprintf(peer, sizeof(peer), "Default / Switch: %s / %s", b.node, b.label);
  } else {
    std::snprintf(peer, sizeof(peer), "Computer: %s HCA-1 / 1", b.node);
  }
  char line[512];
  std::snprintf(line, sizeof(line),
                "[110] WARNING [Hardware] IBPort [Default / Switch: %s / %s] [dev_id: %s]: Symbol "
                "error counter rate threshold exceeded. Peer info: %s.",
                a.node, a.label, a.guid, peer);
  w.Line(line);
}

// The spine reports the leaf's port of a leaf-to-spine link unhealthy.
void Unhealthy(Writer& w, const Fabric& f, const Link& l) {
  const Names spine = NamesOf(f, l.b), leaf = NamesOf(f, l.a);
  char line[512];
  std::snprintf(line, sizeof(line),
                "[702] WARNING [Fabric_Notification] IBPort [Default / Switch: %s / %s] [dev_id: "
                "%s]: Peer Port %s:%s is considered by SM as unhealthy due to FLAPPING.",
                spine.node, spine.label, spine.guid, leaf.node, leaf.label);
  w.Line(line);
}

void GidOutOfService(Writer& w, const Fabric& f, int host) {
  const Names h = NamesOf(f, {false, host, 1});
  char line[256];
  std::snprintf(line, sizeof(line),
                "[64] INFO [Fabric_Notification] Port [Default / Computer: %s HCA-1 / 1] [dev_id: "
                "%s]: GID address fe80:0000:0000:0000:%.4s:%.4s:%.4s:%.4s out of service",
                h.node, h.guid, h.guid, h.guid + 4, h.guid + 8, h.guid + 12);
  w.Line(line);
}

// A link for an error: a bad one most of the time, any other else. `uplink`: leaf-to-spine only.
int PickLink(const Fabric& f, Rng& rng, bool uplink) {
  for (;;) {
    int i = rng.Below(100) < 70 ? f.bad[rng.Below(f.bad.size())]
                                : static_cast<int>(rng.Below(f.links.size()));
    if (!uplink || f.links[static_cast<size_t>(i)].b.is_switch) return i;
  }
}

void TakeDown(Writer& w, Fabric& f, int i, unsigned serial) {
  Link& l = f.links[static_cast<size_t>(i)];
  if (l.down) return;
  l.down = true;
  f.down.push_back(i);
  LinkEvent(w, f, l, true, serial);
}

void BringUp(Writer& w, Fabric& f, size_t down_index, unsigned serial) {
  const int i = f.down[down_index];
  f.down[down_index] = f.down.back();
  f.down.pop_back();
  Link& l = f.links[static_cast<size_t>(i)];
  l.down = false;
  LinkEvent(w, f, l, false, serial);
}

// One entry of the everyday mix.
void Everyday(Writer& w, Fabric& f, Rng& rng) {
  w.Next();
  const auto kind = rng.Below(100);
  const auto serial = static_cast<unsigned>(rng.Below(100000));
  if (kind < 55) return GidOutOfService(w, f, static_cast<int>(rng.Below(f.leaves * f.hosts)));
  if (kind < 75) return SymbolErrors(w, f, f.links[PickLink(f, rng, false)]);
  if (kind < 85) {
    int i = PickLink(f, rng, false);
    while (f.links[static_cast<size_t>(i)].down) i = static_cast<int>(rng.Below(f.links.size()));
    return TakeDown(w, f, i, serial);
  }
  if (kind < 95) {
    if (f.down.empty()) return GidOutOfService(w, f, 0);
    return BringUp(w, f, rng.Below(f.down.size()), serial);
  }
  Unhealthy(w, f, f.links[PickLink(f, rng, true)]);
}

// A leaf switch reboots: "Switch is down", its links down, two minutes later "Switch is up" and
// its links up.
void Reboot(Writer& w, Fabric& f, Rng& rng) {
  const int leaf = static_cast<int>(rng.Below(f.leaves));
  const Names n = NamesOf(f, {true, leaf, 1});
  char line[256];
  w.Next();
  std::snprintf(line, sizeof(line),
                "[907] CRITICAL [Fabric_Topology] Switch [Default / Switch: %s] [dev_id: %s]: "
                "Switch is down",
                n.node, n.guid);
  w.Line(line);
  const size_t first = static_cast<size_t>(leaf) * (f.hosts + f.spines);
  for (size_t i = first; i < first + f.hosts + f.spines; ++i) {
    w.After(0.002);
    TakeDown(w, f, static_cast<int>(i), static_cast<unsigned>(i));
  }
  w.After(120);
  std::snprintf(line, sizeof(line),
                "[908] INFO [Fabric_Topology] Switch [Default / Switch: %s] [dev_id: %s]: Switch "
                "is up",
                n.node, n.guid);
  w.Line(line);
  for (size_t i = first; i < first + f.hosts + f.spines; ++i) {
    for (size_t d = 0; d < f.down.size(); ++d) {
      if (f.down[d] != static_cast<int>(i)) continue;
      w.After(0.002);
      BringUp(w, f, d, static_cast<unsigned>(i));
      break;
    }
  }
}

// A storm: 2,000 links (or every link of a smaller fabric) down and up within ten seconds.
void Storm(Writer& w, Fabric& f, Rng& rng) {
  const size_t n = std::min<size_t>(2000, f.links.size());
  const size_t start = rng.Below(f.links.size());
  for (size_t k = 0; k < n; ++k) {
    w.After(0.0025);
    TakeDown(w, f, static_cast<int>((start + k) % f.links.size()), static_cast<unsigned>(k));
  }
  while (!f.down.empty()) {
    w.After(0.0025);
    BringUp(w, f, f.down.size() - 1, 0);
  }
}

bool Parse(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (a == "--storms") {
      o->storms = true;
      continue;
    }
    if (i + 1 >= argc) return false;
    const char* v = argv[++i];
    if (a == "--out") {
      o->out = v;
      continue;
    }
    char* end = nullptr;
    const double d = std::strtod(v, &end);
    if (end == v || *end != '\0' || d <= 0) return false;
    if (a == "--lines")
      o->lines = static_cast<long long>(d);
    else if (a == "--leaves")
      o->leaves = static_cast<int>(d);
    else if (a == "--spines")
      o->spines = static_cast<int>(d);
    else if (a == "--hosts")
      o->hosts = static_cast<int>(d);
    else if (a == "--interval")
      o->interval_s = d;
    else if (a == "--seed")
      o->seed = static_cast<unsigned long long>(d);
    else
      return false;
  }
  return o->leaves > 0 && o->spines > 0 && o->hosts > 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!Parse(argc, argv, &o)) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  FILE* out = o.out ? std::fopen(o.out, "w") : stdout;
  if (!out) {
    std::fprintf(stderr, "fabric_history: cannot write %s\n", o.out);
    return 2;
  }
  Rng rng{o.seed * 0x2545f4914f6cdd1dULL + 1};
  Fabric f = Build(o, rng);
  Writer w(out, o.interval_s, o.seed);
  const double start = w.time();
  double next_reboot = start + 6 * 3600, next_storm = start + 24 * 3600 - 1800;
  while (w.lines() < o.lines) {
    if (o.storms && w.time() >= next_reboot) {
      Reboot(w, f, rng);
      next_reboot += 6 * 3600;
    } else if (o.storms && w.time() >= next_storm) {
      Storm(w, f, rng);
      next_storm += 24 * 3600;
    } else {
      Everyday(w, f, rng);
    }
  }
  std::fprintf(stderr, "fabric_history: %lld lines, %zu links, %.1f days of log\n", w.lines(),
               f.links.size(), (w.time() - start) / 86400);
  return std::fclose(out) == 0 ? 0 : 1;
}
