// Store: the service's PostgreSQL state (tickets, their timelines, port actions, input cursors,
// alerts, silences, decisions, counter samples, the circuit breaker). Work happens in a Store::Tx,
// one database transaction on a pooled connection: what a batch of inputs changes, the intents it
// records and the cursor it advances commit together or not at all. Store's own methods are each
// one read or write and return Status. Store and distinct Tx objects are safe to use from several
// threads; a single Tx is not. Tx methods throw (libpqxx's exceptions, std::exception); callers
// catch std::exception, or a pqxx exception they include <pqxx/except> for.
//
// libpqxx stays behind this header: the implementation is split by table (store_tickets.cc,
// store_actions.cc, store_silences.cc, ...) over the private store/store_db.h, whose Query is the
// one path every Store method takes to the database.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <typeinfo>
#include <vector>

#include "base/metrics.h"
#include "base/status.h"
#include "decide/silence.h"
#include "store/node_drain.h"
#include "store/ticket.h"
#include "store/ticket_list.h"

namespace ufmr {

class ConnectionPool;  // store/connection_pool.h

// One telemetry sample of a ticketed port's error counters.
struct CounterSample {
  std::string port;
  double at = 0;            // epoch seconds
  nlohmann::json counters;  // {"SymbolErrorCounterExtended": 12, ...}
};

// A span this service had a port disabled or isolated (`action`): from the action's request to
// its undoing's confirmation (epoch seconds; `to` 0 while still held).
struct HeldSpan {
  std::string port;
  std::string action;  // disable | isolate
  double from = 0;
  double to = 0;
};

// The actor the service records on a ticket's timeline for what it did itself (staff actions
// carry the user's name).
inline constexpr const char* kServiceActor = "service";

class Store {
 public:
  // The circuit breaker of this fabric (table breaker).
  struct BreakerState {
    bool tripped = false;
    std::optional<double> tripped_at;  // epoch seconds
    std::string reason;
    int64_t ticket_id = 0;  // the storm ticket
    std::string rearmed_by;
    std::optional<double> rearmed_at;
  };

  class Tx {
   public:
    ~Tx();
    Tx(const Tx&) = delete;
    Tx& operator=(const Tx&) = delete;

    std::optional<Ticket> OpenTicketForLink(const std::string& link_key);  // locks the row
    std::optional<Ticket> TicketById(int64_t id);                          // locks the row
    std::vector<Ticket> TicketsInState(const std::string& state);          // locks the rows
    int64_t InsertTicket(const Ticket& t);
    // state, attempts, flags, soak/closed times; rule and reason when set (an upgrade)
    void UpdateTicket(const Ticket& t);
    void AddEvent(int64_t ticket_id, const std::string& kind, const std::string& actor,
                  const std::string& message,
                  const nlohmann::json& details = nlohmann::json::object());
    int64_t InsertAction(const PortAction& a);
    // state, job id, error, tries, next try, announced, system GUID; confirmed_at when confirmed
    void UpdateAction(const PortAction& a);
    std::vector<PortAction> OpenActions();  // pending or submitted, oldest first
    // Confirmed actions whose UFM external event is not posted yet (at most 100).
    std::vector<PortAction> UnannouncedActions();
    std::optional<PortAction> ActionById(int64_t id);  // locks the row
    std::vector<PortAction> ActionsOfTicket(int64_t ticket_id);
    // Ports this service holds out of service, or is about to (pending intents): the guards'
    // view. CountHeldDisabled is their number; HeldTickets the tickets that hold them.
    int CountHeldDisabled();
    // This fabric's confirmed disables and isolations of the last `within_s` seconds, with
    // their undoing (enable, unisolate).
    std::vector<HeldSpan> HeldSpans(double within_s);
    std::vector<std::string> HeldPorts();
    std::vector<Ticket> HeldTickets();
    // Disable and isolate intents recorded at or after the time (not failed or skipped).
    int CutActionsSince(double epoch_s);
    // When the service last recorded an action (not failed or skipped) on the port.
    std::optional<double> LastActionOn(const std::string& port);
    BreakerState Breaker();
    void TripBreaker(const std::string& reason, int64_t ticket_id);
    // False when it was not tripped.
    bool RearmBreaker(const std::string& by);
    std::optional<int64_t> Cursor(const std::string& source);
    // What else a source needs to resume (e.g. the newest event's timestamp); {} if none.
    nlohmann::json CursorState(const std::string& source);
    void SetCursor(const std::string& source, int64_t position,
                   const nlohmann::json& state = nlohmann::json::object());
    int64_t AddAlert(const std::string& kind, const std::string& message,
                     const nlohmann::json& details = nlohmann::json::object());
    // Clears every active alert of `kind` (e.g. a rules reload that failed, once one succeeds).
    int ClearAlertsOfKind(const std::string& kind, const std::string& by);
    // The ports of this fabric's tickets that are not closed (the counter history's subjects).
    std::vector<std::string> OpenTicketPorts();
    void AddCounterSample(const std::string& port, double at_epoch_s,
                          const nlohmann::json& counters);
    // Drops counter samples taken before the time; returns how many.
    int PruneCounterSamples(double before_epoch_s);
    // Tickets not closed whose place (TicketPlacer) was never filled (filed before 007).
    std::vector<Ticket> UnplacedTickets(int limit);
    void SetPlace(const Ticket& t);  // switch_name, rack, host_name, ends, search_text
    // Records a decision (decision.h's Decision, as JSON), the ticket it opened or touched and
    // its trigger (act/decided_once.h; "" none). The transaction's decisions are written
    // together, in order, when it commits: a storm's pass records thousands, and one statement
    // each kept the pipeline waiting on PostgreSQL.
    void AddDecision(const nlohmann::json& decision, std::optional<int64_t> ticket_id,
                     const std::string& trigger = "");
    // Whether a decision with this trigger is recorded (committed) already.
    bool Decided(const std::string& trigger);
    // Drains of hosts in the job scheduler (store_drains.cc).
    int64_t InsertDrain(const NodeDrain& d);
    void UpdateDrain(const NodeDrain& d);
    std::vector<NodeDrain> OpenDrains();  // pending, draining, drained, resuming; locks the rows
    // This fabric's drains for the ticket (a reason naming another fabric's ticket is not
    // ours); locks the rows.
    std::vector<NodeDrain> DrainsOfTicket(int64_t ticket_id);
    // A cut waiting for its drain (port action 'waiting') made `state` (pending, skipped).
    void SetCutState(int64_t action_id, const std::string& state, const std::string& why);
    std::vector<Ticket> TicketsWithoutHostJobs(int limit);  // open, on a host, jobs not looked up
    void SetHostJobs(int64_t ticket_id, const nlohmann::json& jobs);
    void Commit();

   private:
    friend class Store;
    struct Impl;  // the pooled connection and its transaction (store/store_db.h)
    Tx(Store* store, std::unique_ptr<Impl> impl);
    void WriteDecisions();
    Store* store_;
    std::string decisions_;  // AddDecision's rows not yet written: JSON objects, comma-separated
    std::unique_ptr<Impl> impl_;
    std::chrono::steady_clock::time_point began_;
    bool committed_ = false;
  };

  // Connects once to check the database answers; later connections open on demand.
  static Result<std::unique_ptr<Store>> Open(const std::string& url, const std::string& fabric);
  ~Store();

  // Applies schema/*.sql files not yet recorded in schema_migrations, in name order.
  Status Migrate(const std::string& schema_dir);
  // The migrations in schema_dir that the database has not applied yet, in name order.
  Result<std::vector<std::string>> PendingMigrations(const std::string& schema_dir);
  Result<std::unique_ptr<Tx>> Begin();

  // Read-only views for the API. state: a ticket state, "open" (all not closed) or "all".
  Result<std::vector<Ticket>> ListTickets(const std::string& state, int limit);
  // Tickets of every fabric in the database (TicketQuery::fabric narrows it).
  Result<TicketPage> ListTickets(const TicketQuery& query);
  // Any fabric's ticket.
  Result<Ticket> GetTicket(int64_t id);
  // The tickets of `ids` that exist, in one statement (a storm's notifications read hundreds);
  // an id with no ticket is missing from the answer.
  Result<std::vector<Ticket>> GetTickets(const std::vector<int64_t>& ids);
  // Why this fabric has no ticket `id`: Conflict naming the fabric that has it (its own service
  // must change it), else NotFound.
  Status MissingTicket(int64_t id);
  // Samples of these ports taken from `since` to `until` (none: to now), oldest first. A port
  // with more than `per_port` samples is thinned evenly to about that many, keeping its first
  // and last (the counters are cumulative, so a chart of increases stays true).
  Result<std::vector<CounterSample>> CounterSamples(const std::string& fabric,
                                                    const std::vector<std::string>& ports,
                                                    double since_epoch_s,
                                                    std::optional<double> until_epoch_s,
                                                    int per_port);
  Result<std::vector<TicketEvent>> Events(int64_t ticket_id);
  Result<std::vector<PortAction>> Actions(int64_t ticket_id);
  Result<std::vector<NodeDrain>> Drains(int64_t ticket_id);
  Result<std::vector<Alert>> ActiveAlerts(int limit);
  // This fabric's tickets by state (states without tickets are left out).
  Result<std::map<std::string, int64_t>> TicketCounts();
  // This fabric's circuit breaker (armed, with no row yet, on a fresh database).
  Result<BreakerState> GetBreaker();
  // The newest decisions, newest first (each as recorded: the Decision JSON plus id, ticket_id,
  // decided_at); `rule` filters when not empty.
  Result<nlohmann::json> RecentDecisions(int limit, const std::string& rule);
  // Dismisses an alert; NotFound if there is no such active alert.
  Status ClearAlert(int64_t id, const std::string& by);

  // Silences (maintenance windows). "In force" is by the database clock: created_at <= now() <
  // expires_at and not ended early. AddSilence validates first (InvalidArgument), then records it
  // with the database's now() as created_at (s.created_at only serves validation) and returns it
  // with its id; expires_at must be later than that now() (InvalidArgument otherwise).
  Result<Silence> AddSilence(const Silence& s);
  // Newest first; include_expired false: only those in force.
  Result<std::vector<Silence>> ListSilences(bool include_expired, int limit);
  // Those in force, oldest first (the order SilenceSet::Match tries them in).
  Result<std::vector<Silence>> ActiveSilences();
  // Any silence of this fabric, in force or not; NotFound if there is none with that id.
  Result<Silence> GetSilence(int64_t id);
  // Ends a silence early (expired_at = now(), expired_by = by or NULL if empty); NotFound if
  // there is no such silence in force.
  Status ExpireSilence(int64_t id, const std::string& by);
  Status Ping();

  // What Run hands its function: the transaction, as the pqxx::work& the function takes (its file
  // includes <pqxx/pqxx>; this header does not). Any other type is a std::bad_cast, which Run
  // returns as Unavailable.
  class SqlWork {
   public:
    template <typename Work>
    operator Work&() const {  // NOLINT: implicit by design, so `[&](pqxx::work& w) {...}` binds
      if (typeid(Work) != type_) throw std::bad_cast();
      return *static_cast<Work*>(work_);
    }

   private:
    friend class Store;
    SqlWork(void* work, const std::type_info& type) : work_(work), type_(type) {}
    void* work_;
    const std::type_info& type_;
  };
  // Runs `fn` in one read-write transaction on a pooled connection and commits it. A database
  // error (or any exception from fn) is returned as Unavailable; fn's own Status, if not ok, is
  // returned as is and the transaction is rolled back. For stores of other tables (AuthStore):
  // store_->Run([&](pqxx::work& w) { ...; return Status::Ok(); }).
  Status Run(const std::function<Status(SqlWork&)>& fn, const char* op = "auth");

  const std::string& fabric() const { return fabric_; }
  // Times every transaction (ufmr_db_transaction_duration_seconds) and every read or write of
  // the methods above (ufmr_db_query_duration_seconds{op}) from here on. Call before use.
  void set_metrics(Metrics* metrics) { metrics_ = metrics; }
  // How far back earlier tickets on a link count toward Ticket::repeat_count. Call before use.
  void set_repeat_window_s(double seconds);

 private:
  Store(std::string url, std::string fabric);
  // The one path from a Store method to the database (defined in store/store_db.h, for the
  // store's own files): a pooled connection, a transaction of type Work (committed when fn's
  // Status or Result is ok, if Work writes), the op's timing, and any exception logged and
  // returned as Unavailable.
  template <typename Work, typename Fn>
  auto Query(const char* op, Fn&& fn);
  // The same around a bare connection, for work of several transactions (Migrate).
  template <typename Fn>
  auto WithConnection(const char* op, Fn&& fn);

  std::string fabric_;
  Metrics* metrics_ = nullptr;
  std::string ticket_columns_;
  std::unique_ptr<ConnectionPool> pool_;
};

}  // namespace ufmr
