// SHA-256 (FIPS 180-4) as lowercase hex: engine-cache keys (model files hashed by
// content) and the knowledge-base fingerprint.
#pragma once
#include <string>
#include <string_view>

namespace trtlens {

std::string sha256_hex(std::string_view data);
// Of a file's contents (streamed). Throws InputError.
std::string sha256_file(const std::string& path);

}  // namespace trtlens
