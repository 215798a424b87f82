#include "api/auth_store.h"

#include <re2/re2.h>

#include <pqxx/pqxx>

#include "api/password.h"

namespace ufmr {
namespace {

std::optional<double> OptTime(const pqxx::field& f) {
  if (f.is_null()) return std::nullopt;
  return f.as<double>();
}

Role RoleOf(const pqxx::field& f) { return ParseRole(f.as<std::string>()).value_or(Role::kViewer); }

constexpr const char* kUserColumns =
    "id, name, role, password_hash, extract(epoch from created_at)::float8, disabled";

User UserOf(const pqxx::row& r) {
  User u;
  u.id = r[0].as<int64_t>();
  u.name = r[1].as<std::string>();
  u.role = RoleOf(r[2]);
  u.password_hash = r[3].as<std::string>();
  u.created_at = r[4].as<double>();
  u.disabled = r[5].as<bool>();
  return u;
}

// Ends every session of the user; with `revoke`, also revokes their tokens.
void EndUserCredentials(pqxx::work& w, int64_t user_id, bool revoke) {
  w.exec_params("DELETE FROM sessions WHERE user_id = $1", user_id);
  if (revoke) {
    w.exec_params(
        "UPDATE api_tokens SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL",
        user_id);
  }
}

std::optional<int64_t> UserId(pqxx::work& w, const std::string& name) {
  auto r = w.exec_params("SELECT id FROM users WHERE name = $1 FOR UPDATE", name);
  if (r.empty()) return std::nullopt;
  return r[0][0].as<int64_t>();
}

}  // namespace

nlohmann::json AuditEntry::ToJson() const {
  return {{"id", id},     {"at", at},         {"fabric", fabric}, {"actor", actor},
          {"role", role}, {"via", via},       {"action", action}, {"method", method},
          {"path", path}, {"target", target}, {"status", status}, {"details", details}};
}

Status ValidateUserName(const std::string& name) {
  static const RE2 kName("[A-Za-z0-9._@-]{1,64}");
  if (!RE2::FullMatch(name, kName)) {
    return Status::InvalidArgument("bad user name '" + name.substr(0, 80) +
                                   "': use 1 to 64 letters, digits, '.', '_', '-' or '@'");
  }
  return Status::Ok();
}

AuthStore::AuthStore(Store& store) : store_(store) {}

Status AuthStore::AddUser(const std::string& name, Role role, const std::string& password) {
  if (Status s = ValidateUserName(name); !s.ok()) return s;
  if (Status s = CheckPasswordPolicy(password); !s.ok()) return s;
  auto hash = HashPassword(password);
  if (!hash.ok()) return hash.status();
  return store_.Run([&](pqxx::work& w) {
    auto r = w.exec_params(
        "INSERT INTO users (name, role, password_hash) VALUES ($1, $2, $3) "
        "ON CONFLICT (name) DO NOTHING RETURNING id",
        name, std::string(RoleName(role)), hash.value());
    if (r.empty()) return Status::Conflict("user '" + name + "' already exists");
    return Status::Ok();
  });
}

Result<std::vector<User>> AuthStore::ListUsers() {
  std::vector<User> out;
  Status s = store_.Run([&](pqxx::work& w) {
    for (const auto& r :
         w.exec(std::string("SELECT ") + kUserColumns + " FROM users ORDER BY name"))
      out.push_back(UserOf(r));
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

Result<User> AuthStore::GetUser(const std::string& name) {
  std::optional<User> out;
  Status s = store_.Run([&](pqxx::work& w) {
    auto r =
        w.exec_params(std::string("SELECT ") + kUserColumns + " FROM users WHERE name = $1", name);
    if (!r.empty()) out = UserOf(r[0]);
    return Status::Ok();
  });
  if (!s.ok()) return s;
  if (!out) return Status::NotFound("no user '" + name + "'");
  return *out;
}

Status AuthStore::SetPassword(const std::string& name, const std::string& password) {
  if (Status s = CheckPasswordPolicy(password); !s.ok()) return s;
  auto hash = HashPassword(password);
  if (!hash.ok()) return hash.status();
  return store_.Run([&](pqxx::work& w) {
    auto id = UserId(w, name);
    if (!id) return Status::NotFound("no user '" + name + "'");
    w.exec_params("UPDATE users SET password_hash = $2 WHERE id = $1", *id, hash.value());
    EndUserCredentials(w, *id, false);
    return Status::Ok();
  });
}

Status AuthStore::DisableUser(const std::string& name) {
  return store_.Run([&](pqxx::work& w) {
    auto id = UserId(w, name);
    if (!id) return Status::NotFound("no user '" + name + "'");
    w.exec_params("UPDATE users SET disabled = true WHERE id = $1", *id);
    EndUserCredentials(w, *id, true);
    return Status::Ok();
  });
}

Result<bool> AuthStore::HasActiveUser() {
  bool any = false;
  Status s = store_.Run([&](pqxx::work& w) {
    any = !w.exec("SELECT 1 FROM users WHERE NOT disabled LIMIT 1").empty();
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return any;
}

Status AuthStore::CreateSession(const std::string& id_digest, const std::string& user,
                                const std::string& csrf, double created_at, double expires_at) {
  return store_.Run([&](pqxx::work& w) {
    w.exec_params("DELETE FROM sessions WHERE expires_at <= to_timestamp($1)", created_at);
    auto r = w.exec_params(
        "INSERT INTO sessions (id_hash, user_id, csrf, created_at, expires_at) "
        "SELECT $1, id, $3, to_timestamp($4), to_timestamp($5) FROM users "
        "WHERE name = $2 AND NOT disabled RETURNING 1",
        id_digest, user, csrf, created_at, expires_at);
    if (r.empty()) return Status::NotFound("no user '" + user + "'");
    return Status::Ok();
  });
}

Result<std::optional<Credential>> AuthStore::FindSession(const std::string& id_digest) {
  std::optional<Credential> out;
  Status s = store_.Run([&](pqxx::work& w) {
    auto r = w.exec_params(
        "SELECT u.name, u.role, s.csrf, extract(epoch from s.expires_at)::float8 "
        "FROM sessions s JOIN users u ON u.id = s.user_id "
        "WHERE s.id_hash = $1 AND NOT u.disabled",
        id_digest);
    if (r.empty()) return Status::Ok();
    Credential c;
    c.user = r[0][0].as<std::string>();
    c.role = RoleOf(r[0][1]);
    c.csrf = r[0][2].as<std::string>();
    c.expires_at = r[0][3].as<double>();
    out = std::move(c);
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

Status AuthStore::EndSession(const std::string& id_digest) {
  return store_.Run([&](pqxx::work& w) {
    w.exec_params("DELETE FROM sessions WHERE id_hash = $1", id_digest);
    return Status::Ok();
  });
}

Result<NewToken> AuthStore::CreateToken(const std::string& user, const std::string& label) {
  NewToken t;
  t.token = NewApiToken();
  t.prefix = t.token.substr(0, kTokenPrefix.size() + 6);
  Status s = store_.Run([&](pqxx::work& w) {
    auto u = w.exec_params("SELECT id, disabled FROM users WHERE name = $1", user);
    if (u.empty()) return Status::NotFound("no user '" + user + "'");
    if (u[0][1].as<bool>()) return Status::InvalidArgument("user '" + user + "' is disabled");
    auto r = w.exec_params(
        "INSERT INTO api_tokens (user_id, token_hash, prefix, label) VALUES ($1, $2, $3, $4) "
        "RETURNING id",
        u[0][0].as<int64_t>(), SecretDigest(t.token), t.prefix, label);
    t.id = r[0][0].as<int64_t>();
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return t;
}

Result<std::vector<ApiToken>> AuthStore::ListTokens() {
  std::vector<ApiToken> out;
  Status s = store_.Run([&](pqxx::work& w) {
    auto rows = w.exec(
        "SELECT t.id, u.name, t.prefix, t.label, extract(epoch from t.created_at)::float8, "
        "extract(epoch from t.last_used_at)::float8, extract(epoch from t.revoked_at)::float8 "
        "FROM api_tokens t JOIN users u ON u.id = t.user_id ORDER BY t.id");
    for (const auto& r : rows) {
      ApiToken t;
      t.id = r[0].as<int64_t>();
      t.user = r[1].as<std::string>();
      t.prefix = r[2].as<std::string>();
      t.label = r[3].as<std::string>();
      t.created_at = r[4].as<double>();
      t.last_used_at = OptTime(r[5]);
      t.revoked_at = OptTime(r[6]);
      out.push_back(std::move(t));
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

Status AuthStore::RevokeToken(int64_t id) {
  return store_.Run([&](pqxx::work& w) {
    auto r =
        w.exec_params("SELECT revoked_at IS NOT NULL FROM api_tokens WHERE id = $1 FOR UPDATE", id);
    if (r.empty()) return Status::NotFound("no token " + std::to_string(id));
    if (r[0][0].as<bool>())
      return Status::Conflict("token " + std::to_string(id) + " is already revoked");
    w.exec_params("UPDATE api_tokens SET revoked_at = now() WHERE id = $1", id);
    return Status::Ok();
  });
}

Result<std::optional<Credential>> AuthStore::FindToken(const std::string& token_digest,
                                                       double now) {
  std::optional<Credential> out;
  Status s = store_.Run([&](pqxx::work& w) {
    auto r = w.exec_params(
        "SELECT t.id, u.name, u.role, (t.last_used_at IS NULL OR t.last_used_at < "
        "to_timestamp($2) - interval '1 minute') FROM api_tokens t JOIN users u ON u.id = "
        "t.user_id WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND NOT u.disabled",
        token_digest, now);
    if (r.empty()) return Status::Ok();
    if (r[0][3].as<bool>()) {
      w.exec_params("UPDATE api_tokens SET last_used_at = to_timestamp($2) WHERE id = $1",
                    r[0][0].as<int64_t>(), now);
    }
    Credential c;
    c.user = r[0][1].as<std::string>();
    c.role = RoleOf(r[0][2]);
    out = std::move(c);
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

Status AuthStore::AddAudit(const AuditEntry& e) {
  return store_.Run([&](pqxx::work& w) {
    w.exec_params(
        "INSERT INTO audit_log (at, fabric, actor, role, via, action, method, path, target, "
        "status, details) VALUES (to_timestamp($1), $2, $3, $4, $5, $6, $7, $8, $9, $10, "
        "$11::jsonb)",
        e.at, store_.fabric(), e.actor, e.role, e.via, e.action, e.method, e.path, e.target,
        e.status, e.details.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    return Status::Ok();
  });
}

Result<int64_t> AuthStore::BeginAudit(const AuditEntry& e) {
  int64_t id = 0;
  Status s = store_.Run([&](pqxx::work& w) {
    auto r = w.exec_params(
        "INSERT INTO audit_log (at, fabric, actor, role, via, action, method, path, target, "
        "status, details) VALUES (to_timestamp($1), $2, $3, $4, $5, $6, $7, $8, $9, $10, "
        "$11::jsonb) RETURNING id",
        e.at, store_.fabric(), e.actor, e.role, e.via, e.action, e.method, e.path, e.target,
        e.status, e.details.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    id = r[0][0].as<int64_t>();
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return id;
}

Status AuthStore::FinishAudit(int64_t id, int status) {
  return store_.Run([&](pqxx::work& w) {
    w.exec_params("UPDATE audit_log SET status = $2 WHERE id = $1", id, status);
    return Status::Ok();
  });
}

Result<std::vector<AuditEntry>> AuthStore::RecentAudit(int limit) {
  std::vector<AuditEntry> out;
  Status s = store_.Run([&](pqxx::work& w) {
    auto rows = w.exec_params(
        "SELECT id, extract(epoch from at)::float8, fabric, actor, role, via, action, method, "
        "path, target, status, details::text FROM audit_log ORDER BY id DESC LIMIT $1",
        limit);
    for (const auto& r : rows) {
      AuditEntry e;
      e.id = r[0].as<int64_t>();
      e.at = r[1].as<double>();
      e.fabric = r[2].as<std::string>();
      e.actor = r[3].as<std::string>();
      e.role = r[4].as<std::string>();
      e.via = r[5].as<std::string>();
      e.action = r[6].as<std::string>();
      e.method = r[7].as<std::string>();
      e.path = r[8].as<std::string>();
      e.target = r[9].as<std::string>();
      e.status = r[10].as<int>();
      e.details = nlohmann::json::parse(r[11].as<std::string>(), nullptr, false);
      out.push_back(std::move(e));
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

}  // namespace ufmr
