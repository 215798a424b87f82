// AuthStore: users, their sessions and API tokens, and the audit log, in PostgreSQL (tables of
// schema/006_auth.sql) through Store::Run. Users are global, not per fabric; audit rows record the
// store's fabric. Secrets never reach the database: passwords are hashed here (argon2id), session
// ids and tokens arrive or leave as SHA-256 digests, and a new token's plain text is returned
// once, by CreateToken. Every method is one transaction and safe from several threads; database
// failures are Unavailable.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/role.h"
#include "base/status.h"
#include "store/store.h"

namespace ufmr {

struct User {
  int64_t id = 0;
  std::string name;
  Role role = Role::kViewer;
  std::string password_hash;  // argon2id, PHC string
  double created_at = 0;      // epoch seconds
  bool disabled = false;
};

struct ApiToken {
  int64_t id = 0;
  std::string user;
  std::string prefix;  // the token's first characters (not secret)
  std::string label;
  double created_at = 0;
  std::optional<double> last_used_at;
  std::optional<double> revoked_at;
};

// The answer to CreateToken: the only time the token's plain text exists outside its holder.
struct NewToken {
  int64_t id = 0;
  std::string token;
  std::string prefix;
};

// A session or token as found: whose it is, and (sessions) its CSRF token and end.
struct Credential {
  std::string user;
  Role role = Role::kViewer;
  std::string csrf;       // sessions only
  double expires_at = 0;  // sessions only, epoch seconds
};

struct AuditEntry {
  int64_t id = 0;
  double at = 0;  // epoch seconds
  std::string fabric;
  std::string actor;  // the user's name; "" when anonymous
  std::string role;   // RoleName, "" when anonymous
  std::string via;    // "session", "token", "anonymous" or ""
  std::string action;
  std::string method;
  std::string path;
  std::string target;
  int status = 0;
  nlohmann::json details = nlohmann::json::object();

  nlohmann::json ToJson() const;
};

// InvalidArgument unless the name is 1 to 64 letters, digits, '.', '_', '-' or '@'.
Status ValidateUserName(const std::string& name);

class AuthStore {
 public:
  explicit AuthStore(Store& store);

  // Users. AddUser and SetPassword check the name and the password policy (InvalidArgument) and
  // hash the password; AddUser is Conflict when the name is taken. SetPassword ends the user's
  // sessions; DisableUser ends them too and revokes the user's tokens. NotFound for no such user.
  Status AddUser(const std::string& name, Role role, const std::string& password);
  Result<std::vector<User>> ListUsers();
  Result<User> GetUser(const std::string& name);
  Status SetPassword(const std::string& name, const std::string& password);
  Status DisableUser(const std::string& name);
  // Whether any user that is not disabled exists (the service warns at start when none does).
  Result<bool> HasActiveUser();

  // Sessions, by the digest of their id. CreateSession also drops every expired session.
  Status CreateSession(const std::string& id_digest, const std::string& user,
                       const std::string& csrf, double created_at, double expires_at);
  // The session's user (not disabled), role, CSRF token and end; nullopt when unknown or the user
  // is disabled. Expiry is the caller's to judge (by its clock).
  Result<std::optional<Credential>> FindSession(const std::string& id_digest);
  Status EndSession(const std::string& id_digest);

  // API tokens. CreateToken: NotFound for no such user, InvalidArgument for a disabled one.
  Result<NewToken> CreateToken(const std::string& user, const std::string& label);
  Result<std::vector<ApiToken>> ListTokens();
  // NotFound for no such token, Conflict when it is already revoked.
  Status RevokeToken(int64_t id);
  // The token's user and role if it is known, not revoked and its user not disabled; records its
  // use (last_used_at, at most once a minute) at `now`.
  Result<std::optional<Credential>> FindToken(const std::string& token_digest, double now);

  // The audit log. AddAudit records the entry with this store's fabric (entry.fabric ignored).
  Status AddAudit(const AuditEntry& entry);
  // The same, returning the row's id, for a change about to be made; FinishAudit records its
  // answer (the row's status) once it is made.
  Result<int64_t> BeginAudit(const AuditEntry& entry);
  Status FinishAudit(int64_t id, int status);
  // Newest first, every fabric.
  Result<std::vector<AuditEntry>> RecentAudit(int limit);

 private:
  Store& store_;
};

}  // namespace ufmr
