// Role: what a user may do, shared by the AuthGate (which checks it on every route) and the
// AuthStore (which keeps it with each user). Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>

namespace ufmr {

// Ordered: each role may do what the ones before it may.
enum class Role { kViewer = 0, kTechnician = 1, kEngineer = 2, kAdmin = 3 };
const char* RoleName(Role r);
// "viewer", "technician", "engineer", "admin"; nullopt otherwise.
std::optional<Role> ParseRole(const std::string& s);

}  // namespace ufmr
