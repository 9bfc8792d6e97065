#include "store/hash.h"

#include <sodium.h>

#include <vector>

#include "store/store.h"

namespace trtlens::store {

void init_sodium() {
  // sodium_init is thread-safe and returns 1 when already initialised.
  if (sodium_init() < 0) throw StoreError(StoreError::Kind::Backend, "libsodium: cannot initialise");
}

std::string to_hex(const unsigned char* bytes, size_t size) {
  std::string out(size * 2 + 1, '\0');
  sodium_bin2hex(out.data(), out.size(), bytes, size);
  out.pop_back();
  return out;
}

std::string random_hex(size_t n) {
  init_sodium();
  std::vector<unsigned char> buf(n);
  randombytes_buf(buf.data(), n);
  std::string out = to_hex(buf.data(), n);
  sodium_memzero(buf.data(), n);
  return out;
}

bool is_digest_hex(std::string_view text) {
  if (text.size() != 64) return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

std::string sha256_hex(std::string_view bytes) {
  unsigned char out[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(out, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  return to_hex(out, sizeof out);
}

std::string blake2b_hex(std::string_view bytes) {
  init_sodium();
  unsigned char out[32];
  crypto_generichash(out, sizeof out, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), nullptr, 0);
  return to_hex(out, sizeof out);
}

std::string blake2b_keyed_hex(std::string_view bytes, std::string_view key) {
  init_sodium();
  if (key.size() < crypto_generichash_KEYBYTES_MIN || key.size() > crypto_generichash_KEYBYTES_MAX)
    throw StoreError(StoreError::Kind::Backend, "blake2b: a key is 16 to 64 bytes");
  unsigned char out[32];
  crypto_generichash(out, sizeof out, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(),
                     reinterpret_cast<const unsigned char*>(key.data()), key.size());
  return to_hex(out, sizeof out);
}

bool same_secret(std::string_view a, std::string_view b) {
  return a.size() == b.size() && sodium_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace trtlens::store
