// Password hashing and the service's random secrets, through libsodium: passwords hashed with
// argon2id (interactive limits), session ids, CSRF and API tokens drawn from the system's CSPRNG,
// and the SHA-256 digests under which tokens and session ids are kept at rest (never the secret
// itself). Every function is safe from several threads; libsodium is initialised on first use.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace ufmr {

// At least this many characters (bytes) in a password.
inline constexpr size_t kMinPasswordLength = 8;
// And at most this many: argon2id hashes anything, but a megabyte "password" is an attack.
inline constexpr size_t kMaxPasswordLength = 1024;
// What API tokens start with, so a leaked one is recognisable (secret scanners, logs).
inline constexpr std::string_view kTokenPrefix = "ufmr_";

// InvalidArgument (saying why) for an empty, short or overlong password.
Status CheckPasswordPolicy(std::string_view password);
// An argon2id hash in the PHC string format ("$argon2id$v=19$m=...,t=...,p=...$salt$hash").
// Internal only if libsodium fails (out of memory).
Result<std::string> HashPassword(std::string_view password);
// Whether the password matches the hash; false for a malformed hash as well.
bool VerifyPassword(const std::string& hash, std::string_view password);

// 32 random bytes as unpadded base64url (43 characters), for session ids and CSRF tokens.
std::string RandomSecret();
// A new API token: kTokenPrefix followed by RandomSecret().
std::string NewApiToken();
// The SHA-256 digest of a secret as 64 lower-case hex digits: how it is stored and looked up.
std::string SecretDigest(std::string_view secret);
// Compares two secrets in time that depends on their length only.
bool SecretsEqual(std::string_view a, std::string_view b);

}  // namespace ufmr
