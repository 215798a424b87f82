#include "loop/inventory_refresh.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <unordered_set>

#include "base/release_memory.h"

namespace ufmr {

namespace {

const LinkInfo& FirstUnresolved(const std::vector<LinkInfo>& links) {
  return *std::find_if(links.begin(), links.end(), [](const LinkInfo& l) { return !l.resolved; });
}

}  // namespace

void InventoryRefresh::MaybeRefresh(bool standby) {
  // Taking the lead, the ports are read again at once: what a standby read may be older than the
  // last leader's last action (its enable a moment before it died, which a stale "Disabled"
  // would make a person's disable).
  // Until a read succeeds, it is tried again every few seconds (not every pass: a UFM that does
  // not answer would hold each pass up).
  constexpr double kRetryS = 5;
  if (standby) read_for_lead_ = false;
  const TimePoint now = p_.clock.Now();
  const bool took_lead = !standby && !read_for_lead_ &&
                         (!tried_for_lead_ || Seconds(now - *tried_for_lead_).count() >= kRetryS);
  if (due_.Due(now, p_.config.inventory.refresh_interval_s) || !loaded_ ||
      p_.inventory.size() == 0 || took_lead) {
    if (!standby) tried_for_lead_ = now;
    if (Refresh(standby) && !standby) read_for_lead_ = true;
  }
}

bool InventoryRefresh::Refresh(bool standby) {
  auto ports = p_.ufm.GetPorts();
  if (!ports.ok()) {
    spdlog::warn("inventory refresh failed: {}", ports.status().ToString());
    p_.metrics.Add("ufmr_ufm_errors_total{call=\"ports\"}");
    p_.inputs.Failed("inventory", p_.clock.Now(), ports.status().message());
    return false;
  }
  spdlog::debug("inventory: {} ports", ports->size());
  // Peers the ports list leaves out come from the links, when UFM serves them. A link whose ends
  // name no port UFM lists is counted and shown (/api/inputs), never guessed.
  int unresolved = 0;
  auto links = p_.ufm.GetLinks();
  if (links.ok()) {
    unresolved = ResolveLinks(&links.value(), [&](const std::string& n) { return ports->Has(n); });
    if (unresolved > 0) {
      const LinkInfo& first = FirstUnresolved(links.value());
      spdlog::warn("inventory: {} of {} links name a port UFM does not list (e.g. {} - {})",
                   unresolved, links->size(), first.a, first.b);
    }
    int filled = ports->FillPeersFromLinks(links.value());
    if (filled > 0) spdlog::debug("inventory: {} peers filled in from the links", filled);
  } else if (links.status().code() != Status::Code::kNotFound) {
    spdlog::warn("links refresh failed: {}", links.status().ToString());
    p_.metrics.Add("ufmr_ufm_errors_total{call=\"links\"}");
  }
  if (links.ok()) p_.metrics.Set("ufmr_inventory_links_unresolved", unresolved);
  for (const auto& c : p_.inventory.Replace(ports.value())) {
    // Not an error, but worth knowing: tickets name links by their ends.
    spdlog::info("inventory: port {} now faces {} (was {})", c.port,
                 c.now.empty() ? "nothing" : c.now, c.was.empty() ? "nothing" : c.was);
    p_.metrics.Add("ufmr_inventory_peer_changes_total");
  }
  p_.inputs.Ok("inventory", p_.clock.Now(),
               std::to_string(p_.inventory.size()) + " ports" +
                   (unresolved > 0 ? "; " + std::to_string(unresolved) +
                                         " links name no port UFM lists (not used)"
                                   : ""));
  loaded_ = true;
  if (!standby) PlaceTickets();
  // The answers' text and trees (tens of MB at 100,000 ports) are freed by now; the allocator
  // keeps freed pages for reuse, so hand them back: the resident size stays the inventory's.
  ReleaseFreeMemory();
  return true;
}

void InventoryRefresh::PlaceTickets() {
  // Tickets filed before the service knew where links are (or by an older version) get their
  // place once the inventory is in.
  auto txr = p_.store.Begin();
  if (!txr.ok()) return;
  try {
    auto& tx = *txr.value();
    auto tickets = tx.UnplacedTickets(500);
    if (tickets.empty()) return;
    for (auto& t : tickets) {
      p_.placer.Place(p_.inventory, &t);
      tx.SetPlace(t);
    }
    tx.Commit();
  } catch (const std::exception& e) {
    spdlog::warn("cannot record where ticketed links are: {}", e.what());
  }
}

}  // namespace ufmr
