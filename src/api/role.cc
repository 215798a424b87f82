#include "api/role.h"

namespace ufmr {

const char* RoleName(Role r) {
  switch (r) {
    case Role::kViewer:
      return "viewer";
    case Role::kTechnician:
      return "technician";
    case Role::kEngineer:
      return "engineer";
    case Role::kAdmin:
      return "admin";
  }
  return "viewer";
}

std::optional<Role> ParseRole(const std::string& s) {
  for (Role r : {Role::kViewer, Role::kTechnician, Role::kEngineer, Role::kAdmin}) {
    if (s == RoleName(r)) return r;
  }
  return std::nullopt;
}

}  // namespace ufmr
