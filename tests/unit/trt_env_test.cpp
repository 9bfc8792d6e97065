// TensorRT install discovery against fake installs (tests/trt_env_fakes.cmake).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "trtlens/error.h"
#include "trtlens/trt_env.h"
#include "unit/trt_env_fake_install.h"

namespace trtlens::test {
namespace {

namespace fs = std::filesystem;

SearchOptions isolated(const std::string& sysroot) {
  SearchOptions o;
  o.sysroot = sysroot;
  o.query_gpus = false;
  return o;
}

const VersionSource* source(const TrtInstall& in, const std::string& name) {
  for (const auto& v : in.versions)
    if (v.source == name) return &v;
  return nullptr;
}

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

}  // namespace

TEST(TrtEnvVersion, ParsesOneToFourComponents) {
  auto v = parse_trt_version("10.3");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->major, 10);
  EXPECT_EQ(v->minor, 3);
  EXPECT_EQ(v->patch, -1);
  EXPECT_EQ(v->str(), "10.3");
  EXPECT_EQ(parse_trt_version("8.6.1.6")->str(), "8.6.1.6");
  EXPECT_FALSE(parse_trt_version(""));
  EXPECT_FALSE(parse_trt_version("10.x"));
  EXPECT_FALSE(parse_trt_version("10."));
  EXPECT_FALSE(parse_trt_version("1.2.3.4.5"));
  EXPECT_FALSE(parse_trt_version("v10"));
}

TEST(TrtEnvVersion, DecodesBothPackings) {
  EXPECT_EQ(decode_trt_version_number(8601).str(), "8.6.1");   // M*1000+m*100+p up to 8.x
  EXPECT_EQ(decode_trt_version_number(7103).str(), "7.1.3");
  EXPECT_EQ(decode_trt_version_number(100300).str(), "10.3.0"); // M*10000+m*100+p from 10.0
  EXPECT_EQ(decode_trt_version_number(101302).str(), "10.13.2");
  EXPECT_EQ(decode_trt_version_number(110100).str(), "11.1.0");
  EXPECT_FALSE(decode_trt_version_number(0).known());
}

TEST(TrtEnvVersion, AgreementComparesOnlyStatedComponents) {
  EXPECT_TRUE(parse_trt_version("10.3")->agrees_with(*parse_trt_version("10.3.0.26")));
  EXPECT_FALSE(parse_trt_version("10.3.1")->agrees_with(*parse_trt_version("10.3.0.26")));
  EXPECT_FALSE(parse_trt_version("10.3.0.26")->agrees_with(*parse_trt_version("10.3.0.27")));
}

TEST(TrtEnvHeader, ReadsLiteralMacros) {
  HeaderVersion h = parse_version_header("NvInferVersion.h",
                                         "#define NV_TENSORRT_MAJOR 8 //!< major\n"
                                         "#define NV_TENSORRT_MINOR 6 /* minor */\n"
                                         "#  define NV_TENSORRT_PATCH (1)\n"
                                         "#define NV_TENSORRT_BUILD 6U\n");
  EXPECT_EQ(h.version.str(), "8.6.1.6");
}

TEST(TrtEnvHeader, FollowsEnterpriseIndirection) {
  std::string dir = temp_dir("TrtEnvHeader_Enterprise");
  fake::write_header(dir, 10, 14, 1, 48, true);
  HeaderVersion h = read_version_header(dir + "/NvInferVersion.h");
  EXPECT_EQ(h.version.str(), "10.14.1.48");
  ASSERT_FALSE(h.notes.empty());
  EXPECT_TRUE(contains(h.notes[0], "TRT_MAJOR_ENTERPRISE")) << h.notes[0];
}

TEST(TrtEnvHeader, HeaderWithoutMacrosIsAnError) {
  try {
    parse_version_header("NvInfer.h", "#include \"NvInferVersion.h\"\n#define SOMETHING 1\n");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "NvInfer.h");
    EXPECT_TRUE(contains(e.problem(), "NV_TENSORRT_MAJOR")) << e.what();
  }
}

TEST(TrtEnvHeader, IndirectionToAnUndefinedMacroNamesIt) {
  try {
    parse_version_header("h", "#define NV_TENSORRT_MAJOR TRT_MAJOR_ENTERPRISE\n#define NV_TENSORRT_MINOR 1\n"
                              "#define NV_TENSORRT_PATCH 0\n");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.problem(), "TRT_MAJOR_ENTERPRISE, which this header does not define")) << e.what();
  }
  EXPECT_THROW(parse_version_header("h", "#define NV_TENSORRT_MAJOR \"ten\"\n#define NV_TENSORRT_MINOR 1\n"
                                         "#define NV_TENSORRT_PATCH 0\n"),
               InputError);
  EXPECT_THROW(parse_version_header("h", "#define NV_TENSORRT_MAJOR A\n#define A B\n#define B A\n"
                                         "#define NV_TENSORRT_MINOR 1\n#define NV_TENSORRT_PATCH 0\n"),
               InputError);
}

TEST(TrtEnvElf, ReadsDynamicSymbolsOfTheFakeLibrary) {
  ElfInfo e = read_elf_dynamic(TRT_FAKE_NVINFER_10);
  EXPECT_EQ(e.bits, 64);
  EXPECT_EQ(e.machine, host_machine());
  EXPECT_EQ(e.soname, "libnvinfer.so.10");
  auto has = [&](const std::string& s) {
    return std::find(e.dynamic_symbols.begin(), e.dynamic_symbols.end(), s) != e.dynamic_symbols.end();
  };
  EXPECT_TRUE(has("getInferLibVersion"));
  EXPECT_TRUE(has("tensorrt_version_10_3_0_26"));
  EXPECT_FALSE(has("abort"));  // imported, not defined

  LibrarySymbols s = trt_symbols(e.dynamic_symbols);
  EXPECT_EQ(s.version.str(), "10.3.0.26");
  EXPECT_EQ(s.build_symbol, "tensorrt_build_release_10_3_20240731_34167542");
  EXPECT_EQ(s.build_date, "2024-07-31");
  EXPECT_EQ(s.changelist, "34167542");
}

TEST(TrtEnvElf, RejectsFilesThatAreNotSharedLibraries) {
  std::string dir = temp_dir("TrtEnvElf_Rejects");
  write_text(dir + "/text.so", "this is not an ELF file at all");
  try {
    read_elf_dynamic(dir + "/text.so");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.problem(), "not an ELF file")) << e.what();
  }
  // The first 200 bytes of a real library: the section headers lie past the end.
  std::ifstream in(TRT_FAKE_NVINFER_10, std::ios::binary);
  std::string head(200, '\0');
  in.read(head.data(), 200);
  write_text(dir + "/truncated.so", head);
  try {
    read_elf_dynamic(dir + "/truncated.so");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.problem(), "truncated")) << e.what();
  }
}

TEST(TrtEnvProbe, CallsVersionFunctionsInAChild) {
  LoadProbe p = probe_library(TRT_FAKE_NVINFER_10, {"getInferLibVersion", "getInferLibBuildVersion", "noSuchFunction"});
  ASSERT_TRUE(p.loaded) << p.error;
  EXPECT_EQ(p.value("getInferLibVersion"), 100300);
  EXPECT_EQ(p.value("getInferLibBuildVersion"), 26);
  EXPECT_FALSE(p.value("noSuchFunction"));
  LoadProbe c = probe_library(TRT_FAKE_CUDART_12, {}, {"cudaRuntimeGetVersion"});
  EXPECT_EQ(c.value("cudaRuntimeGetVersion"), 12020);
}

TEST(TrtEnvProbe, ReportsALibraryThatFailsToLoad) {
  // Copied away from its dependency, as a broken install would be.
  std::string dir = temp_dir("TrtEnvProbe_Unloadable");
  std::string lib = fake::install_lib(TRT_FAKE_NVINFER_UNLOADABLE, dir);
  LoadProbe p = probe_library(lib, {"getInferLibVersion"});
  EXPECT_FALSE(p.loaded);
  EXPECT_TRUE(contains(p.error, "libtrtlens_fake_dep.so")) << p.error;
}

TEST(TrtEnvProbe, SurvivesALibraryThatCrashesWhileLoading) {
  LoadProbe p = probe_library(TRT_FAKE_NVINFER_CRASH, {"getInferLibVersion"});
  EXPECT_FALSE(p.loaded);
  EXPECT_TRUE(contains(p.error, "crashed while loading (signal 6")) << p.error;
}

TEST(TrtEnvDiscover, TarballViaPathReadsEverySource) {
  std::string root = fake::tarball_10(temp_dir("TrtEnvDiscover_Tarball") + "/TensorRT-10.3.0.26");
  SearchOptions o = isolated(temp_dir("TrtEnvDiscover_Tarball_empty_root"));
  o.paths = {root};
  EnvReport r = discover_trt(o);
  ASSERT_EQ(r.installs.size(), 1u);
  const TrtInstall& in = r.installs[0];
  EXPECT_EQ(in.found_via, std::vector<std::string>{"--path"});
  EXPECT_EQ(in.version.str(), "10.3.0.26");
  ASSERT_TRUE(source(in, "header"));
  EXPECT_EQ(source(in, "header")->version.str(), "10.3.0.26");
  EXPECT_TRUE(contains(source(in, "header")->where, "TRT_MAJOR_ENTERPRISE"));
  ASSERT_TRUE(source(in, "symbol"));
  ASSERT_TRUE(source(in, "getInferLibVersion"));
  EXPECT_EQ(source(in, "getInferLibVersion")->version.str(), "10.3.0");
  ASSERT_TRUE(source(in, "getInferLibMajor/Minor/Patch/BuildVersion"));
  ASSERT_TRUE(source(in, "file name"));
  EXPECT_EQ(in.infer_lib_version, 100300);
  EXPECT_TRUE(in.disagreements.empty()) << in.disagreements[0];
  EXPECT_TRUE(in.problems.empty()) << in.problems[0];
  EXPECT_EQ(in.symbols.build_date, "2024-07-31");
  EXPECT_TRUE(contains(in.parser_library, "libnvonnxparser.so"));
  EXPECT_EQ(in.parser_version.str(), "10.3.0");
  EXPECT_EQ(in.parser_api_version, 100);
}

TEST(TrtEnvDiscover, MapsTheVersionToAKnowledgeBaseRelease) {
  std::string release, note;
  map_to_release(*parse_trt_version("10.3.0.26"), release, note);
  EXPECT_EQ(release, "10.3");
  map_to_release(*parse_trt_version("8.6.1.6"), release, note);
  EXPECT_EQ(release, "8.6");
  map_to_release(*parse_trt_version("99.1.0"), release, note);
  EXPECT_EQ(release, "");
  EXPECT_TRUE(contains(note, "99.1")) << note;
}

TEST(TrtEnvDiscover, DesktopAndJetsonSystemLayouts) {
  std::string sysroot = temp_dir("TrtEnvDiscover_System");
  fake::desktop_8(sysroot);
  fake::jetson_10(sysroot);
  EnvReport r = discover_trt(isolated(sysroot));
  ASSERT_EQ(r.installs.size(), 2u);
  EXPECT_EQ(r.installs[0].version.str(), "8.6.1.6");
  EXPECT_EQ(r.installs[0].found_via, std::vector<std::string>{"system"});
  EXPECT_TRUE(contains(r.installs[0].header, "include/x86_64-linux-gnu/NvInferVersion.h"));
  EXPECT_EQ(r.installs[0].release, "8.6");
  // 8.x: no getInferLibMajorVersion; the packed integer uses M*1000.
  EXPECT_EQ(r.installs[0].infer_lib_version, 8601);
  EXPECT_FALSE(source(r.installs[0], "getInferLibMajor/Minor/Patch/BuildVersion"));
  EXPECT_TRUE(r.installs[0].disagreements.empty());
  EXPECT_EQ(r.installs[1].version.str(), "10.3.0.26");
  EXPECT_TRUE(contains(r.installs[1].header, "include/aarch64-linux-gnu/NvInferVersion.h"));

  SearchOptions off = isolated(sysroot);
  off.system = false;
  EXPECT_TRUE(discover_trt(off).installs.empty());
}

TEST(TrtEnvDiscover, TwoReleasesSideBySideInOneFolder) {
  std::string sysroot = temp_dir("TrtEnvDiscover_SideBySide");
  std::string dir = sysroot + "/usr/lib/x86_64-linux-gnu";
  fake::install_lib(TRT_FAKE_NVINFER_8, dir);
  fake::install_lib(TRT_FAKE_NVINFER_10, dir);
  fake::install_lib(TRT_FAKE_NVONNXPARSER_10, dir);
  EnvReport r = discover_trt(isolated(sysroot));
  ASSERT_EQ(r.installs.size(), 2u);
  EXPECT_EQ(r.installs[0].version.str(), "10.3.0.26");  // the longer name (10.3.0) sorts first
  EXPECT_EQ(r.installs[1].version.str(), "8.6.1.6");
  EXPECT_EQ(r.installs[0].parser_version.str(), "10.3.0");
  ASSERT_EQ(r.installs[1].disagreements.size(), 1u);  // only a 10.3 parser is there
  EXPECT_TRUE(contains(r.installs[1].disagreements[0], "parser library is 10.3.0")) << r.installs[1].disagreements[0];
}

TEST(TrtEnvDiscover, BrokenSymlinkIsAProblem) {
  std::string root = temp_dir("TrtEnvDiscover_BrokenLink");
  fs::create_directories(root + "/lib");
  fs::create_symlink("libnvinfer.so.10.3.0", root + "/lib/libnvinfer.so.10");
  SearchOptions o = isolated(temp_dir("TrtEnvDiscover_BrokenLink_root"));
  o.paths = {root};
  EnvReport r = discover_trt(o);
  ASSERT_EQ(r.installs.size(), 1u);
  ASSERT_EQ(r.installs[0].problems.size(), 1u);
  EXPECT_TRUE(contains(r.installs[0].problems[0], "libnvinfer.so.10: broken symbolic link")) << r.installs[0].problems[0];
  EXPECT_FALSE(r.installs[0].version.known());
}

TEST(TrtEnvDiscover, SameLibraryThroughTwoRoutesIsOneInstall) {
  std::string root = fake::tarball_10(temp_dir("TrtEnvDiscover_TwoRoutes"));
  SearchOptions o = isolated(temp_dir("TrtEnvDiscover_TwoRoutes_root"));
  o.tensorrt_root = root;
  o.ld_library_path = root + "/lib";
  EnvReport r = discover_trt(o);
  ASSERT_EQ(r.installs.size(), 1u);
  EXPECT_EQ(r.installs[0].found_via, (std::vector<std::string>{"TENSORRT_ROOT", "LD_LIBRARY_PATH"}));
}

TEST(TrtEnvDiscover, LdconfigCacheLeadsToAnInstall) {
  std::string sysroot = temp_dir("TrtEnvDiscover_LdCache");
  fake::install_lib(TRT_FAKE_NVINFER_8, sysroot + "/opt/nv/lib");
  fake::write_ld_cache(sysroot + "/etc/ld.so.cache", {"/lib/x86_64-linux-gnu/libc.so.6", "/opt/nv/lib/libnvinfer.so.8"});
  EXPECT_EQ(read_ld_so_cache(sysroot + "/etc/ld.so.cache"),
            (std::vector<std::string>{"/lib/x86_64-linux-gnu/libc.so.6", "/opt/nv/lib/libnvinfer.so.8"}));
  EnvReport r = discover_trt(isolated(sysroot));
  ASSERT_EQ(r.installs.size(), 1u);
  EXPECT_EQ(r.installs[0].found_via, std::vector<std::string>{"ldconfig cache"});
  EXPECT_EQ(r.installs[0].version.str(), "8.6.1.6");
  EXPECT_TRUE(r.installs[0].header.empty());  // none installed: the other sources still answer
}

TEST(TrtEnvDiscover, CorruptLdCacheIsAProblemNotAFailure) {
  std::string sysroot = temp_dir("TrtEnvDiscover_BadLdCache");
  write_text(sysroot + "/etc/ld.so.cache", "garbage");
  EXPECT_THROW(read_ld_so_cache(sysroot + "/etc/ld.so.cache"), InputError);
  fake::desktop_8(sysroot);
  EnvReport r = discover_trt(isolated(sysroot));
  ASSERT_EQ(r.installs.size(), 1u);
  ASSERT_FALSE(r.installs[0].problems.empty());
  EXPECT_TRUE(contains(r.installs[0].problems[0], "ld.so.cache")) << r.installs[0].problems[0];
}

TEST(TrtEnvDiscover, ReportsDisagreementBetweenHeaderAndLibrary) {
  std::string root = temp_dir("TrtEnvDiscover_Disagree");
  fake::install_lib(TRT_FAKE_NVINFER_10, root + "/lib");
  fake::write_header(root + "/include", 10, 2, 0, 19, false);  // headers of another release left behind
  SearchOptions o = isolated(temp_dir("TrtEnvDiscover_Disagree_root"));
  o.paths = {root};
  EnvReport r = discover_trt(o);
  ASSERT_EQ(r.installs.size(), 1u);
  ASSERT_EQ(r.installs[0].disagreements.size(), 1u);
  EXPECT_EQ(r.installs[0].disagreements[0], "header says 10.2.0.19, getInferLibMajor/Minor/Patch/BuildVersion says 10.3.0.26");
  EXPECT_EQ(r.installs[0].version.str(), "10.3.0.26");  // the library's own answer wins
}

TEST(TrtEnvDiscover, ReportsAParserOfAnotherRelease) {
  std::string root = temp_dir("TrtEnvDiscover_Parser");
  fake::install_lib(TRT_FAKE_NVINFER_10, root + "/lib");
  fs::copy_file(TRT_FAKE_NVONNXPARSER_10, root + "/lib/libnvonnxparser.so.10.2.0");
  SearchOptions o = isolated(temp_dir("TrtEnvDiscover_Parser_root"));
  o.paths = {root};
  EnvReport r = discover_trt(o);
  ASSERT_EQ(r.installs.size(), 1u);
  ASSERT_EQ(r.installs[0].disagreements.size(), 1u);
  EXPECT_EQ(r.installs[0].disagreements[0], "the ONNX parser library is 10.2.0, libnvinfer is 10.3.0.26");
}

TEST(TrtEnvDiscover, HeaderWithoutMacrosAndUnloadableLibraryAreReported) {
  std::string root = temp_dir("TrtEnvDiscover_Broken");
  fake::install_lib(TRT_FAKE_NVINFER_UNLOADABLE, root + "/lib");
  write_text(root + "/include/NvInferVersion.h", "#pragma once\n// nothing here\n");
  SearchOptions o = isolated(temp_dir("TrtEnvDiscover_Broken_root"));
  o.paths = {root};
  EnvReport r = discover_trt(o);
  ASSERT_EQ(r.installs.size(), 1u);
  const TrtInstall& in = r.installs[0];
  ASSERT_EQ(in.problems.size(), 1u);
  EXPECT_TRUE(contains(in.problems[0], "NV_TENSORRT_MAJOR")) << in.problems[0];
  EXPECT_TRUE(contains(in.load_error, "cannot load")) << in.load_error;
  EXPECT_EQ(in.version.str(), "10.3.0.26");  // from the symbol
}

TEST(TrtEnvDiscover, OlderReleasesKeepTheMacrosInNvInferH) {
  std::string root = temp_dir("TrtEnvDiscover_NvInferH");
  fake::install_lib(TRT_FAKE_NVINFER_8, root + "/lib");
  write_text(root + "/include/NvInfer.h", "#define NV_TENSORRT_MAJOR 8\n#define NV_TENSORRT_MINOR 6\n"
                                          "#define NV_TENSORRT_PATCH 1\n#define NV_TENSORRT_BUILD 6\nclass INetwork;\n");
  SearchOptions o = isolated(temp_dir("TrtEnvDiscover_NvInferH_root"));
  o.paths = {root};
  EnvReport r = discover_trt(o);
  ASSERT_EQ(r.installs.size(), 1u);
  EXPECT_TRUE(contains(r.installs[0].header, "include/NvInfer.h"));
  ASSERT_TRUE(source(r.installs[0], "header"));
  EXPECT_EQ(source(r.installs[0], "header")->version.str(), "8.6.1.6");
}

TEST(TrtEnvDiscover, ForeignArchitectureIsReadButNotLoaded) {
  std::string root = temp_dir("TrtEnvDiscover_Foreign");
  std::string lib = fake::install_lib(TRT_FAKE_NVINFER_10, root + "/lib");
  {  // e_machine at offset 18: make it an aarch64 library (183) on an x86-64 host, or x86-64 (62) elsewhere
    std::fstream f(lib, std::ios::in | std::ios::out | std::ios::binary);
    uint16_t m = host_machine() == "x86_64" ? 183 : 62;
    f.seekp(18);
    f.write(reinterpret_cast<const char*>(&m), 2);
  }
  SearchOptions o = isolated(temp_dir("TrtEnvDiscover_Foreign_root"));
  o.paths = {root};
  EnvReport r = discover_trt(o);
  ASSERT_EQ(r.installs.size(), 1u);
  EXPECT_NE(r.installs[0].machine, host_machine());
  EXPECT_TRUE(contains(r.installs[0].load_error, "not loaded: built for")) << r.installs[0].load_error;
  EXPECT_EQ(r.installs[0].version.str(), "10.3.0.26");
}

TEST(TrtEnvDiscover, FindsTheCudaRuntimeBesideTensorRT) {
  std::string root = fake::tarball_10(temp_dir("TrtEnvDiscover_Cuda"));
  fake::install_lib(TRT_FAKE_CUDART_12, root + "/lib");
  SearchOptions o = isolated(temp_dir("TrtEnvDiscover_Cuda_root"));
  o.paths = {root};
  EnvReport r = discover_trt(o);
  ASSERT_EQ(r.cuda.size(), 1u);
  EXPECT_EQ(r.cuda[0].version.str(), "12.2");
  EXPECT_EQ(r.cuda[0].source, "cudaRuntimeGetVersion");
}

TEST(TrtEnvDiscover, NothingInstalledIsAnEmptyReport) {
  EnvReport r = discover_trt(isolated(temp_dir("TrtEnvDiscover_Nothing")));
  EXPECT_TRUE(r.installs.empty());
  EXPECT_TRUE(r.cuda.empty());
}

}  // namespace trtlens::test
