// NV_TENSORRT_* macros of NvInferVersion.h / NvInfer.h, read as text.
#include <cctype>
#include <map>
#include <sstream>

#include "trtlens/error.h"
#include "trtlens/trt_env.h"
#include "util/files.h"

namespace trtlens {
namespace {

// Text of a line with // and /* */ comments removed (block comments are
// dropped within one line; a version header has no multi-line define).
std::string strip_comments(const std::string& line, bool& in_block) {
  std::string out;
  for (size_t i = 0; i < line.size(); ++i) {
    if (in_block) {
      if (line.compare(i, 2, "*/") == 0) in_block = false, ++i;
      continue;
    }
    if (line.compare(i, 2, "//") == 0) break;
    if (line.compare(i, 2, "/*") == 0) {
      in_block = true;
      ++i;
      continue;
    }
    out += line[i];
  }
  return out;
}

std::string trim(std::string s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// Every object-like #define NAME VALUE of the text.
std::map<std::string, std::string> defines(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  bool in_block = false;
  while (std::getline(in, line)) {
    std::string s = trim(strip_comments(line, in_block));
    if (s.empty() || s[0] != '#') continue;
    s = trim(s.substr(1));
    if (s.compare(0, 6, "define") != 0 || s.size() < 7 || !std::isspace(static_cast<unsigned char>(s[6]))) continue;
    s = trim(s.substr(6));
    size_t name_end = 0;
    while (name_end < s.size() && (std::isalnum(static_cast<unsigned char>(s[name_end])) || s[name_end] == '_'))
      ++name_end;
    if (name_end == 0 || (name_end < s.size() && s[name_end] == '(')) continue;  // function-like
    out[s.substr(0, name_end)] = trim(s.substr(name_end));
  }
  return out;
}

// Removes redundant parentheses and integer suffixes: "(10U)" -> "10".
std::string normalize_value(std::string v) {
  v = trim(v);
  while (v.size() >= 2 && v.front() == '(' && v.back() == ')') v = trim(v.substr(1, v.size() - 2));
  while (!v.empty() && std::isdigit(static_cast<unsigned char>(v.front())) && (v.back() == 'U' || v.back() == 'u' ||
                                                                              v.back() == 'L' || v.back() == 'l'))
    v.pop_back();
  return v;
}

bool is_number(const std::string& v) {
  if (v.empty()) return false;
  for (char c : v)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

bool is_identifier(const std::string& v) {
  if (v.empty() || std::isdigit(static_cast<unsigned char>(v[0]))) return false;
  for (char c : v)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// Value of macro `name`, following NAME -> OTHER_NAME chains (10.11+ headers
// define NV_TENSORRT_MAJOR as TRT_MAJOR_ENTERPRISE). -1 when `name` is absent.
int resolve(const std::string& path, const std::map<std::string, std::string>& defs, const std::string& name,
            std::vector<std::string>& notes) {
  auto it = defs.find(name);
  if (it == defs.end()) return -1;
  std::string chain = name;
  std::string value = normalize_value(it->second);
  for (int depth = 0; depth < 8; ++depth) {
    if (is_number(value)) {
      if (chain != name) notes.push_back(chain + " = " + value);
      try {
        return std::stoi(value);
      } catch (const std::exception&) {
        throw InputError(path, name + " is out of range: " + value);
      }
    }
    if (!is_identifier(value))
      throw InputError(path, name + " is defined as '" + it->second + "', not a number or a macro name");
    chain += " -> " + value;
    auto next = defs.find(value);
    if (next == defs.end())
      throw InputError(path, name + " is defined as " + value + ", which this header does not define");
    value = normalize_value(next->second);
  }
  throw InputError(path, name + ": macro chain too deep (" + chain + ")");
}

}  // namespace

HeaderVersion parse_version_header(const std::string& path, const std::string& text) {
  auto defs = defines(text);
  HeaderVersion h;
  h.path = path;
  h.version.major = resolve(path, defs, "NV_TENSORRT_MAJOR", h.notes);
  h.version.minor = resolve(path, defs, "NV_TENSORRT_MINOR", h.notes);
  h.version.patch = resolve(path, defs, "NV_TENSORRT_PATCH", h.notes);
  std::string missing;
  for (auto [name, v] : {std::pair{"NV_TENSORRT_MAJOR", h.version.major}, {"NV_TENSORRT_MINOR", h.version.minor},
                         {"NV_TENSORRT_PATCH", h.version.patch}})
    if (v < 0) missing += (missing.empty() ? "" : ", ") + std::string(name);
  if (!missing.empty()) throw InputError(path, "no " + missing + " macro; not a TensorRT version header");
  // NV_TENSORRT_BUILD is optional: the oldest headers do not define it.
  h.version.build = resolve(path, defs, "NV_TENSORRT_BUILD", h.notes);
  return h;
}

HeaderVersion read_version_header(const std::string& path) { return parse_version_header(path, read_file(path)); }

}  // namespace trtlens
