// Model uploads: client-given names, hostile zip archives, and the zip `push` packs.
#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "serve/model_archive.h"
#include "support/onnx_builder.h"
#include "support/paths.h"
#include "support/zip_writer.h"
#include "trtlens/error.h"
#include "trtlens/model.h"

namespace fs = std::filesystem;
using namespace trtlens;
using namespace trtlens::test;

namespace {

// Every path below `dir`, relative, sorted ("a", "a/b", ...).
std::vector<std::string> tree(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) out.push_back(fs::relative(e.path(), dir).generic_string());
  std::sort(out.begin(), out.end());
  return out;
}

constexpr ArchiveLimits kLimits{1 << 20, 100};

// A test folder with a zip beside an empty destination: base/up.zip, base/dest.
struct ZipCase {
  std::string base, zip, dest;
  explicit ZipCase(const std::string& name) : base(temp_dir("archive_" + name)), zip(base + "/up.zip"), dest(base + "/dest") {
    fs::create_directories(dest);
  }
  // Extracts and expects a refusal whose message holds `problem`; checks that
  // nothing stays in dest and nothing appeared beside it.
  void expect_refused(const std::string& problem, const ArchiveLimits& limits = kLimits) const {
    try {
      extract_model_archive(zip, dest, "team.zip", limits);
      ADD_FAILURE() << "no error; expected: " << problem;
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "team.zip");
      EXPECT_NE(std::string(e.what()).find(problem), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
    EXPECT_EQ(tree(base), (std::vector<std::string>{"dest", "up.zip"}));
  }
};

}  // namespace

// ------------------------------------------------------------ safe_upload_name

TEST(SafeUploadName, NormalizesGoodNames) {
  EXPECT_EQ(safe_upload_name("model.onnx"), "model.onnx");
  EXPECT_EQ(safe_upload_name("a//b/./c.onnx"), "a/b/c.onnx");
  EXPECT_EQ(safe_upload_name("./weights/"), "weights");
  EXPECT_EQ(safe_upload_name("modèle v2.onnx"), "modèle v2.onnx");
  EXPECT_EQ(safe_upload_name(std::string(255, 'a')), std::string(255, 'a'));
}

TEST(SafeUploadName, RefusesHostileNames) {
  struct Case {
    std::string name, problem;
  };
  std::vector<Case> cases = {
      {"", "empty name"},
      {"/etc/passwd", "absolute path"},
      {"../evil", "'..'"},
      {"a/../../evil", "'..'"},
      {"a\\..\\evil", "backslash"},
      {std::string("a\0b", 3), "control character"},
      {"a\nb", "control character"},
      {"a\x7f", "control character"},
      {"bad\xff.onnx", "not valid UTF-8"},
      {std::string(256, 'a'), "a component is 256 bytes; at most 255"},
      {std::string(4097, 'a'), "name is 4097 bytes; at most 4096"},
      {"-rf.onnx", "starts with '-'"},
      {"dir/.hidden", "hidden"},
      {".", "names no file"},
      {"//", "absolute path"},
  };
  for (const Case& c : cases) {
    try {
      safe_upload_name(c.name);
      ADD_FAILURE() << "accepted " << c.name;
    } catch (const InputError& e) {
      EXPECT_NE(e.problem().find(c.problem), std::string::npos) << e.what();
      // The name is shown, but never with its raw control bytes.
      for (char ch : std::string(e.what())) EXPECT_FALSE(ch == '\n' || ch == '\0') << e.what();
    }
  }
}

// ------------------------------------------------------------ extract_model_archive

TEST(ExtractModelArchive, ExtractsFilesAndFolders) {
  ZipCase s("good");
  write_zip(s.zip, {folder_entry("model/"),
                    file_entry("model/model.onnx", "onnx bytes"),
                    file_entry("model/weights/w.bin", "weights"),
                    file_entry("README.txt", "hello")});
  auto files = extract_model_archive(s.zip, s.dest, "team.zip", kLimits);
  EXPECT_EQ(files, (std::vector<std::string>{"model/model.onnx", "model/weights/w.bin", "README.txt"}));
  EXPECT_EQ(read_text(s.dest + "/model/weights/w.bin"), "weights");
  EXPECT_EQ(read_text(s.dest + "/README.txt"), "hello");
  EXPECT_EQ(tree(s.dest), (std::vector<std::string>{"README.txt", "model", "model/model.onnx", "model/weights",
                                                     "model/weights/w.bin"}));
}

TEST(ExtractModelArchive, SizeLimitIsExactlyTheBytesWritten) {
  ZipCase s("exact_limit");
  write_zip(s.zip, {file_entry("a.onnx", std::string(600, 'a')), file_entry("b.bin", std::string(400, 'b'))});
  EXPECT_EQ(extract_model_archive(s.zip, s.dest, "team.zip", {1000, 2}).size(), 2u);
  fs::remove_all(s.dest);
  fs::create_directories(s.dest);
  s.expect_refused("unpacks to more than 999 bytes, the limit", {999, 2});
}

TEST(ExtractModelArchive, RefusesPathTraversal) {
  ZipCase s("traversal");
  write_zip(s.zip, {file_entry("ok.onnx", "x"), file_entry("../evil", "owned")});
  s.expect_refused("entry '../evil': '..' in a name would leave the folder");
  EXPECT_FALSE(fs::exists(s.base + "/../evil"));
}

TEST(ExtractModelArchive, RefusesAbsoluteNames) {
  ZipCase s("absolute");
  std::string outside = s.base + "/outside.txt";  // an absolute name pointing beside dest
  write_zip(s.zip, {file_entry(outside, "owned")});
  s.expect_refused("absolute path");
  EXPECT_FALSE(fs::exists(outside));
}

TEST(ExtractModelArchive, RefusesSymbolicLinks) {
  ZipCase s("symlink");
  write_zip(s.zip, {symlink_entry("link", ".."), file_entry("link/evil", "owned")});
  s.expect_refused("entry 'link' is a symbolic link; only files and folders are accepted");
}

TEST(ExtractModelArchive, RefusesDuplicateNames) {
  ZipCase s("duplicate");
  write_zip(s.zip, {file_entry("model.onnx", "first"), file_entry("./model.onnx", "second")});
  s.expect_refused("entry 'model.onnx' appears twice");
}

TEST(ExtractModelArchive, RefusesANameThatIsBothFileAndFolder) {
  ZipCase s("file_and_folder");
  write_zip(s.zip, {file_entry("a", "file"), file_entry("a/b.onnx", "inside")});
  s.expect_refused("'a' is both a file and a folder");
}

TEST(ExtractModelArchive, RefusesTooManyEntries) {
  ZipCase s("many");
  std::vector<Entry> entries;
  for (int i = 0; i < 11; ++i) entries.push_back(file_entry("f" + std::to_string(i) + ".bin", "x"));
  write_zip(s.zip, entries);
  s.expect_refused("holds more than 10 entries (files and folders), the limit", {1 << 20, 10});
}

// 64 MiB of zeros deflate to about 64 KiB. Its headers say 64 MiB, so it is
// refused before a byte is written; CountsBytesNotHeaders covers headers that lie.
TEST(ExtractModelArchive, StopsAZipBombAtTheLimit) {
  ZipCase s("bomb");
  write_zip(s.zip, {file_entry("bomb.bin", "", uint64_t{64} << 20)});
  EXPECT_LT(fs::file_size(s.zip), uint64_t{1} << 20);
  s.expect_refused("unpacks to more than 1048576 bytes, the limit");
}

// Headers that lie: the zip declares 16 bytes in both its local and central
// headers for an entry whose deflate stream holds 8 MiB. The header check lets
// it through; the bytes counted while extracting stop it.
TEST(ExtractModelArchive, CountsBytesNotHeaders) {
  ZipCase s("lying_header");
  write_zip(s.zip, {file_entry("w.bin", "", uint64_t{8} << 20)});
  std::string bytes = read_text(s.zip);
  // Local header: uncompressed size at offset 22; central header: at offset 24.
  auto patch = [&](size_t at) {
    uint32_t v = 16;
    std::memcpy(&bytes[at], &v, 4);
  };
  patch(22);
  size_t central = bytes.find("PK\x01\x02");
  ASSERT_NE(central, std::string::npos);
  patch(central + 24);
  write_text(s.zip, bytes);
  s.expect_refused("unpacks to more than 1048576 bytes, the limit");
}

TEST(ExtractModelArchive, RefusesATruncatedZip) {
  ZipCase s("truncated");
  std::string payload;
  for (int i = 0; i < 100000; ++i) payload += std::to_string(i * 7919 % 10007);
  write_zip(s.zip, {file_entry("model.onnx", payload), file_entry("w.bin", payload)});
  std::string bytes = read_text(s.zip);
  write_text(s.zip, bytes.substr(0, bytes.size() / 2));
  s.expect_refused("corrupt or truncated zip archive");
}

TEST(ExtractModelArchive, RefusesAFileThatIsNotAZip) {
  ZipCase s("not_zip");
  write_text(s.zip, "this is a text file, not an archive\n");
  s.expect_refused("not a zip archive");
}

TEST(ExtractModelArchive, RefusesAnotherArchiveFormat) {
  ZipCase s("tar");
  archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  archive_write_open_filename(a, s.zip.c_str());
  archive_entry* ae = archive_entry_new();
  archive_entry_set_pathname(ae, "model.onnx");
  archive_entry_set_filetype(ae, AE_IFREG);
  archive_entry_set_size(ae, 1);
  archive_write_header(a, ae);
  archive_write_data(a, "x", 1);
  archive_entry_free(ae);
  archive_write_free(a);
  s.expect_refused("not a zip archive");
}

TEST(ExtractModelArchive, NeedsAnEmptyDestination) {
  ZipCase s("dest_not_empty");
  write_zip(s.zip, {file_entry("model.onnx", "x")});
  write_text(s.dest + "/already", "here");
  try {
    extract_model_archive(s.zip, s.dest, "team.zip", kLimits);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), s.dest);
    EXPECT_EQ(e.problem(), "is not an empty folder");
  }
  EXPECT_EQ(read_text(s.dest + "/already"), "here");
}

// ------------------------------------------------------------ find_main_model

TEST(FindMainModel, TheOnlyOnnxFileOrTheHint) {
  EXPECT_EQ(find_main_model({"w.bin", "m/model.ONNX"}, "", "up.zip"), "m/model.ONNX");
  EXPECT_EQ(find_main_model({"a.onnx", "b.onnx"}, "./b.onnx", "up.zip"), "b.onnx");
}

TEST(FindMainModel, RefusesAmbiguityAndAbsentFiles) {
  auto problem = [](const std::vector<std::string>& files, std::string_view hint) {
    try {
      find_main_model(files, hint, "up.zip");
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "up.zip");
      return e.problem();
    }
    return std::string("no error");
  };
  EXPECT_EQ(problem({"a.onnx", "b.onnx", "c/c.onnx"}, ""),
            "has 3 .onnx files (a.onnx, b.onnx, c/c.onnx); name one with ?main=...");
  EXPECT_EQ(problem({"w.bin"}, ""), "has no .onnx file");
  EXPECT_EQ(problem({"a.onnx", "w.bin"}, "b.onnx"), "has no file 'b.onnx'; its .onnx files: a.onnx");
  EXPECT_EQ(problem({"a.onnx", "w.bin"}, "w.bin"), "main file 'w.bin' is not a .onnx file");
  EXPECT_EQ(problem({"a.onnx"}, "../a.onnx"), "main file '../a.onnx': '..' in a name would leave the folder");
}

// ------------------------------------------------------------ pack_model

TEST(PackModel, RoundTripsAModelWithExternalData) {
  std::string dir = temp_dir("pack_roundtrip");
  std::string model = save_external_data_model(dir + "/src");
  std::string zip = dir + "/model.zip";
  pack_model(model, zip);
  EXPECT_EQ(folder_entries(dir), (std::vector<std::string>{"model.zip", "src"}));  // no temporary left

  fs::create_directories(dir + "/out");
  auto files = extract_model_archive(zip, dir + "/out", "model.zip", kLimits);
  EXPECT_EQ(files, (std::vector<std::string>{"model.onnx", "weights/w.bin", "b.bin"}));
  for (const auto& f : files) EXPECT_EQ(read_text(dir + "/out/" + f), read_text(dir + "/src/" + f)) << f;
  EXPECT_EQ(find_main_model(files, "", "model.zip"), "model.onnx");
  Model m = load_model(dir + "/out/model.onnx");  // its external data is where it says
  EXPECT_EQ(m.external_data_files, (std::vector<std::string>{"weights/w.bin", "b.bin"}));
}

TEST(PackModel, RefusesLocationsTheServerWouldRefuse) {
  std::string dir = temp_dir("pack_refuses");
  write_text(dir + "/.w.bin", std::string(64, '\0'));
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 4});
  g.init_external("w", {4, 4}, ".w.bin", 0, 64);
  g.node("MatMul", {"x", "w"}, {"y"});
  g.output("y");
  std::string model = mb.save(dir + "/m.onnx");
  try {
    pack_model(model, dir + "/m.zip");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), model);
    EXPECT_EQ(e.problem(), "external data location '.w.bin': component '.w.bin' is hidden (starts with '.')");
  }
  // A location escaping the folder (the loader refuses it too; pack_model checks on its own).
  Model escaping = load_model(save_external_data_model(dir + "/ok"));
  escaping.external_data_files.push_back("../secret");
  EXPECT_THROW(pack_model(escaping, dir + "/e.zip"), InputError);
  EXPECT_EQ(folder_entries(dir), (std::vector<std::string>{".w.bin", "m.onnx", "ok"}));
}

TEST(PackModel, RefusesAnUnwritableDestination) {
  std::string dir = temp_dir("pack_unwritable");
  std::string model = save_external_data_model(dir);
  try {
    pack_model(model, dir + "/no/such/folder/m.zip");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), dir + "/no/such/folder/m.zip");
    EXPECT_NE(e.problem().find("cannot write"), std::string::npos) << e.what();
  }
}
