// A small reader of ELF dynamic symbols (.dynsym/.dynstr) and DT_SONAME.
// Reads only the headers and those sections: libnvinfer is hundreds of MB.
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fmt/core.h>

#include "trtlens/error.h"
#include "trtlens/trt_env.h"

namespace trtlens {
namespace {

class File {
 public:
  explicit File(const std::string& path) : path_(path), fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0) throw InputError(path, std::string("cannot read: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0) throw InputError(path, std::string("cannot read: ") + std::strerror(errno));
    size_ = static_cast<uint64_t>(st.st_size);
  }
  ~File() { ::close(fd_); }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  uint64_t size() const { return size_; }
  // Reads exactly n bytes at off, or throws naming what was being read.
  std::string read(uint64_t off, uint64_t n, const char* what) const {
    if (off > size_ || n > size_ - off) throw InputError(path_, fmt::format("truncated ELF file: {} lies past the end", what));
    std::string buf(n, '\0');
    uint64_t done = 0;
    while (done < n) {
      ssize_t r = ::pread(fd_, buf.data() + done, n - done, static_cast<off_t>(off + done));
      if (r <= 0) throw InputError(path_, fmt::format("cannot read {}: {}", what, r < 0 ? std::strerror(errno) : "end of file"));
      done += static_cast<uint64_t>(r);
    }
    return buf;
  }

 private:
  std::string path_;
  int fd_;
  uint64_t size_ = 0;
};

std::string machine_name(unsigned m) {
  switch (m) {
    case EM_X86_64: return "x86_64";
    case EM_AARCH64: return "aarch64";
    case EM_386: return "i386";
    case EM_ARM: return "arm";
    case EM_PPC64: return "ppc64";
    default: return fmt::format("machine 0x{:x}", m);
  }
}

std::string cstr_at(const std::string& table, uint64_t off) {
  if (off >= table.size()) return "";
  size_t end = table.find('\0', off);
  return table.substr(off, end == std::string::npos ? std::string::npos : end - off);
}

// The same walk for both classes; Ehdr/Shdr/Sym/Dyn are the class's types.
template <class Ehdr, class Shdr, class Sym, class Dyn>
void read_tables(const File& f, const std::string& path, ElfInfo& info) {
  Ehdr eh;
  std::memcpy(&eh, f.read(0, sizeof eh, "ELF header").data(), sizeof eh);
  info.machine = machine_name(eh.e_machine);
  if (eh.e_shoff == 0 || eh.e_shnum == 0) throw InputError(path, "ELF file has no section headers");
  if (eh.e_shentsize != sizeof(Shdr)) throw InputError(path, "ELF section header size is wrong");
  std::string raw = f.read(eh.e_shoff, uint64_t(eh.e_shnum) * sizeof(Shdr), "section headers");
  std::vector<Shdr> sh(eh.e_shnum);
  std::memcpy(sh.data(), raw.data(), raw.size());
  bool found = false;
  for (const Shdr& s : sh) {
    if (s.sh_type == SHT_DYNSYM) {
      if (s.sh_link >= sh.size()) throw InputError(path, ".dynsym links to a missing string table");
      const Shdr& str = sh[s.sh_link];
      std::string strtab = f.read(str.sh_offset, str.sh_size, ".dynstr");
      std::string symtab = f.read(s.sh_offset, s.sh_size, ".dynsym");
      for (size_t off = sizeof(Sym); off + sizeof(Sym) <= symtab.size(); off += sizeof(Sym)) {  // entry 0 is null
        Sym sym;
        std::memcpy(&sym, symtab.data() + off, sizeof sym);
        if (sym.st_shndx == SHN_UNDEF) continue;  // imported, not exported
        std::string name = cstr_at(strtab, sym.st_name);
        if (!name.empty()) info.dynamic_symbols.push_back(std::move(name));
      }
      found = true;
    } else if (s.sh_type == SHT_DYNAMIC && s.sh_link < sh.size()) {
      const Shdr& str = sh[s.sh_link];
      std::string strtab = f.read(str.sh_offset, str.sh_size, ".dynstr");
      std::string dyn = f.read(s.sh_offset, s.sh_size, ".dynamic");
      for (size_t off = 0; off + sizeof(Dyn) <= dyn.size(); off += sizeof(Dyn)) {
        Dyn d;
        std::memcpy(&d, dyn.data() + off, sizeof d);
        if (d.d_tag == DT_NULL) break;
        if (d.d_tag == DT_SONAME) info.soname = cstr_at(strtab, d.d_un.d_val);
      }
    }
  }
  if (!found) throw InputError(path, "ELF file has no dynamic symbol table (.dynsym); not a shared library");
}

}  // namespace

ElfInfo read_elf_dynamic(const std::string& path) {
  File f(path);
  if (f.size() < EI_NIDENT) throw InputError(path, "not an ELF file (too short)");
  std::string ident = f.read(0, EI_NIDENT, "ELF identification");
  if (std::memcmp(ident.data(), ELFMAG, SELFMAG) != 0) throw InputError(path, "not an ELF file (no \\x7fELF magic)");
  if (ident[EI_DATA] != ELFDATA2LSB) throw InputError(path, "big-endian ELF files are not supported");
  ElfInfo info;
  if (ident[EI_CLASS] == ELFCLASS64) {
    info.bits = 64;
    read_tables<Elf64_Ehdr, Elf64_Shdr, Elf64_Sym, Elf64_Dyn>(f, path, info);
  } else if (ident[EI_CLASS] == ELFCLASS32) {
    info.bits = 32;
    read_tables<Elf32_Ehdr, Elf32_Shdr, Elf32_Sym, Elf32_Dyn>(f, path, info);
  } else {
    throw InputError(path, "unknown ELF class");
  }
  return info;
}

std::string host_machine() {
  struct utsname u {};
  if (::uname(&u) != 0) return "";
  std::string m = u.machine;
  if (m == "arm64") return "aarch64";
  return m;
}

LibrarySymbols trt_symbols(const std::vector<std::string>& symbols) {
  LibrarySymbols out;
  for (const auto& s : symbols) {
    if (out.version_symbol.empty() && s.rfind("tensorrt_version_", 0) == 0) {
      std::string rest = s.substr(17);
      for (char& c : rest)
        if (c == '_') c = '.';
      if (auto v = parse_trt_version(rest)) {
        out.version_symbol = s;
        out.version = *v;
      }
    } else if (out.build_symbol.empty() && s.rfind("tensorrt_build_", 0) == 0) {
      out.build_symbol = s;
      // The layout of this symbol is not documented: take the first 8-digit
      // token that is a plausible YYYYMMDD as the date, the next number as the changelist.
      std::vector<std::string> tokens;
      size_t start = 15;
      while (start <= s.size()) {
        size_t end = s.find('_', start);
        if (end == std::string::npos) end = s.size();
        tokens.push_back(s.substr(start, end - start));
        start = end + 1;
      }
      auto digits = [](const std::string& t) {
        return !t.empty() && t.find_first_not_of("0123456789") == std::string::npos;
      };
      for (size_t i = 0; i < tokens.size(); ++i) {
        const std::string& t = tokens[i];
        if (!out.build_date.empty()) {
          if (digits(t)) {
            out.changelist = t;
            break;
          }
          continue;
        }
        if (t.size() == 8 && digits(t) && (t.rfind("19", 0) == 0 || t.rfind("20", 0) == 0)) {
          int month = std::stoi(t.substr(4, 2)), day = std::stoi(t.substr(6, 2));
          if (month >= 1 && month <= 12 && day >= 1 && day <= 31)
            out.build_date = t.substr(0, 4) + "-" + t.substr(4, 2) + "-" + t.substr(6, 2);
        }
      }
    }
  }
  return out;
}

}  // namespace trtlens
