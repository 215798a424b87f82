// ConnectionPool: Store's PostgreSQL connections (libpqxx), kept open between uses, and the names
// of the statements prepared on them. Private to src/store/ (store.h keeps libpqxx out of the
// other folders). Thread-safe: Acquire hands a connection to one user until it is released.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <pqxx/connection>
#include <string>
#include <vector>

namespace ufmr {

class ConnectionPool {
 public:
  explicit ConnectionPool(std::string url) : url_(std::move(url)) {}

  // A pooled connection whose server is still there (dead ones are dropped, and logged), else a
  // new one. Throws std::runtime_error, the password redacted, when it cannot connect.
  std::unique_ptr<pqxx::connection> Acquire();
  // Keeps `conn` for the next Acquire (up to eight idle ones); a closed one is dropped.
  void Release(std::unique_ptr<pqxx::connection> conn);
  // A name under which `conn` has `sql` prepared (PostgreSQL then plans it once per connection,
  // not per request), or "" past kMaxPrepared distinct statements: run it unprepared then.
  std::string Prepared(pqxx::connection_base& conn, const std::string& sql);

  const std::string& url() const { return url_; }

 private:
  // The ticket list's statements differ only by which filters are set (a few dozen in practice);
  // the pipeline's per-finding statements are a handful more.
  static constexpr size_t kMaxPrepared = 256;
  static constexpr size_t kMaxIdle = 8;

  const std::string url_;
  std::mutex mu_;
  std::vector<std::unique_ptr<pqxx::connection>> idle_;  // with mu_
  std::map<std::string, std::string> prepared_;          // statement text -> its name (with mu_)
};

}  // namespace ufmr
