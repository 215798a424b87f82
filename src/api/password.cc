#include "api/password.h"

#include <sodium.h>

#include <cstdlib>
#include <mutex>

namespace ufmr {
namespace {

void InitSodium() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (sodium_init() < 0) std::abort();  // no usable randomness: nothing here can be safe
  });
}

}  // namespace

Status CheckPasswordPolicy(std::string_view password) {
  if (password.empty()) return Status::InvalidArgument("the password is empty");
  if (password.size() < kMinPasswordLength) {
    return Status::InvalidArgument("the password is shorter than " +
                                   std::to_string(kMinPasswordLength) + " characters");
  }
  if (password.size() > kMaxPasswordLength) {
    return Status::InvalidArgument("the password is longer than " +
                                   std::to_string(kMaxPasswordLength) + " characters");
  }
  return Status::Ok();
}

Result<std::string> HashPassword(std::string_view password) {
  InitSodium();
  char out[crypto_pwhash_STRBYTES];
  if (crypto_pwhash_str_alg(out, password.data(), password.size(),
                            crypto_pwhash_OPSLIMIT_INTERACTIVE, crypto_pwhash_MEMLIMIT_INTERACTIVE,
                            crypto_pwhash_ALG_ARGON2ID13) != 0) {
    return Status::Internal("password hashing failed (out of memory?)");
  }
  return std::string(out);
}

bool VerifyPassword(const std::string& hash, std::string_view password) {
  InitSodium();
  if (hash.empty() || hash.size() >= crypto_pwhash_STRBYTES) return false;
  return crypto_pwhash_str_verify(hash.c_str(), password.data(), password.size()) == 0;
}

std::string RandomSecret() {
  InitSodium();
  unsigned char bytes[32];
  randombytes_buf(bytes, sizeof bytes);
  constexpr int kVariant = sodium_base64_VARIANT_URLSAFE_NO_PADDING;
  char out[sodium_base64_ENCODED_LEN(sizeof bytes, kVariant)];
  sodium_bin2base64(out, sizeof out, bytes, sizeof bytes, kVariant);
  sodium_memzero(bytes, sizeof bytes);
  std::string s(out);
  sodium_memzero(out, sizeof out);
  return s;
}

std::string NewApiToken() { return std::string(kTokenPrefix) + RandomSecret(); }

std::string SecretDigest(std::string_view secret) {
  InitSodium();
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(digest, reinterpret_cast<const unsigned char*>(secret.data()), secret.size());
  char hex[crypto_hash_sha256_BYTES * 2 + 1];
  sodium_bin2hex(hex, sizeof hex, digest, sizeof digest);
  return std::string(hex);
}

bool SecretsEqual(std::string_view a, std::string_view b) {
  InitSodium();
  if (a.size() != b.size()) return false;
  if (a.empty()) return true;
  return sodium_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace ufmr
