// Hex digests shared by the object store and the account tables (libsodium underneath).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace trtlens::store {

// Calls sodium_init once; StoreError(Backend) if libsodium cannot start.
void init_sodium();

std::string to_hex(const unsigned char* bytes, size_t size);  // lowercase
// `n` random bytes from libsodium, as 2n lowercase hex digits.
std::string random_hex(size_t n);
// True for 64 lowercase hex digits (a SHA-256 or 32-byte BLAKE2b digest as we print them).
bool is_digest_hex(std::string_view text);
std::string sha256_hex(std::string_view bytes);
std::string blake2b_hex(std::string_view bytes);  // 32-byte BLAKE2b (crypto_generichash)
// 32-byte keyed BLAKE2b of `bytes` (a MAC); `key` is 16 to 64 bytes.
std::string blake2b_keyed_hex(std::string_view bytes, std::string_view key);
// a == b in time that depends only on their sizes (secrets a client sends: CSRF tokens).
bool same_secret(std::string_view a, std::string_view b);

}  // namespace trtlens::store
