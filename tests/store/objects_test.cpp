// The content-addressed object store and streamed uploads.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <thread>

#include "backends.h"
#include "store/store.h"

namespace trtlens::store {
namespace {

using namespace trtlens::store::test;
namespace fs = std::filesystem;
using Kind = StoreError::Kind;

const std::string kShaAbc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
// SHA-256 of "a\0" + kShaAbc + "\n": the tree holding one file "a" with "abc".
const std::string kTreeA = "3af6e51fa1f25dc698a5867373c4a63b5bfbdfcc2695e015f737f68f7930fb80";

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

size_t entries(const fs::path& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

// Sets the modification time of `p` (not following a link) `seconds` into the past.
void age(const fs::path& p, int seconds) {
  struct timeval tv[2];
  ::gettimeofday(&tv[0], nullptr);
  tv[0].tv_sec -= seconds;
  tv[1] = tv[0];
  ASSERT_EQ(::lutimes(p.c_str(), tv), 0) << p;
}


TEST(StreamedFile, HashesWhatItWrites) {
  fs::path dir = fresh_dir("objects-streamed");
  StreamedFile f(dir / "up", 100);
  f.write("ab", 2);
  f.write("c", 1);
  f.close();
  EXPECT_EQ(f.size_bytes(), 3u);
  EXPECT_EQ(f.sha256_hex(), kShaAbc);
  EXPECT_EQ(read(dir / "up"), "abc");
}

TEST(StreamedFile, RefusesMoreThanItsLimit) {
  fs::path dir = fresh_dir("objects-limit");
  StreamedFile exact(dir / "exact", 5);
  exact.write("12345", 5);  // exactly the limit is fine
  exact.close();
  EXPECT_EQ(exact.size_bytes(), 5u);

  StreamedFile f(dir / "up", 5);
  f.write("123", 3);
  try {
    f.write("456", 3);
    FAIL() << "accepted 6 bytes";
  } catch (const StoreError& e) {
    EXPECT_EQ(e.kind, Kind::Invalid);
    EXPECT_STREQ(e.what(), "upload is over 5 bytes");
  }
  EXPECT_EQ(f.size_bytes(), 3u);
}

TEST(StreamedFile, NeverOverwritesAFile) {
  fs::path dir = fresh_dir("objects-exists");
  write(dir / "there", "x");
  EXPECT_EQ(error_kind([&] { StreamedFile f(dir / "there", 10); }), Kind::Backend);
  EXPECT_EQ(read(dir / "there"), "x");
}

TEST(ObjectStore, TreeHashIsOverSortedPathsAndFileHashes) {
  fs::path data = fresh_dir("objects-known");
  ObjectStore os(data);
  fs::path up = os.make_temp_dir();
  write(up / "a", "abc");
  std::string hash = os.adopt_tree(up);
  EXPECT_EQ(hash, kTreeA);
  EXPECT_EQ(os.tree_path(hash), data / "objects" / "3a" / kTreeA);
  EXPECT_EQ(read(os.tree_path(hash) / "a"), "abc");
  EXPECT_FALSE(fs::exists(up));
}

TEST(ObjectStore, SameTreeIsStoredOnce) {
  fs::path data = fresh_dir("objects-dedupe");
  ObjectStore os(data);
  fs::path one = os.make_temp_dir(), two = os.make_temp_dir();
  EXPECT_NE(one, two);
  // Same files, made in another order.
  write(one / "model.onnx", "graph");
  write(one / "weights" / "w.bin", "weights");
  write(two / "weights" / "w.bin", "weights");
  write(two / "model.onnx", "graph");
  std::string h1 = os.adopt_tree(one), h2 = os.adopt_tree(two);
  EXPECT_EQ(h1, h2);
  EXPECT_FALSE(fs::exists(two));  // ours was dropped, theirs kept
  EXPECT_EQ(read(os.tree_path(h1) / "weights" / "w.bin"), "weights");
  EXPECT_EQ(entries(data / "tmp"), 0u);

  fs::path three = os.make_temp_dir();
  write(three / "model.onnx", "graph2");
  write(three / "weights" / "w.bin", "weights");
  EXPECT_NE(os.adopt_tree(three), h1);
  fs::path four = os.make_temp_dir();  // same bytes under another name: another tree
  write(four / "model2.onnx", "graph");
  write(four / "weights" / "w.bin", "weights");
  EXPECT_NE(os.adopt_tree(four), h1);
}

TEST(ObjectStore, SymlinksAndSpecialFilesAreRefused) {
  fs::path data = fresh_dir("objects-refuse");
  ObjectStore os(data);
  fs::path up = os.make_temp_dir();
  write(up / "model.onnx", "graph");
  fs::create_directory_symlink("/etc", up / "etc");
  try {
    os.adopt_tree(up);
    FAIL() << "adopted a symlink";
  } catch (const StoreError& e) {
    EXPECT_EQ(e.kind, Kind::Invalid);
    EXPECT_NE(std::string(e.what()).find("etc: a symbolic link"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(up));

  fs::path fifo = os.make_temp_dir();
  write(fifo / "sub" / "x", "x");
  ASSERT_EQ(::mkfifo((fifo / "sub" / "pipe").c_str(), 0600), 0);
  EXPECT_EQ(error_kind([&] { os.adopt_tree(fifo); }), Kind::Invalid);

  // Nothing was stored: objects/ holds only the blobs folder.
  EXPECT_EQ(entries(data / "objects"), 1u);
}

TEST(ObjectStore, OnlyFoldersUnderTmpAreAdopted) {
  fs::path data = fresh_dir("objects-outside");
  ObjectStore os(data);
  write(data / "elsewhere" / "f", "x");
  EXPECT_EQ(error_kind([&] { os.adopt_tree(data / "elsewhere"); }), Kind::Invalid);
  EXPECT_TRUE(fs::exists(data / "elsewhere" / "f"));
}

TEST(ObjectStore, ConcurrentAdoptsOfOneTreeBothSucceed) {
  // Two ObjectStores on one folder, as two processes would be.
  fs::path data = fresh_dir("objects-race");
  ObjectStore a(data), b(data);
  for (int round = 0; round < 20; ++round) {
    fs::path ta = a.make_temp_dir(), tb = b.make_temp_dir();
    for (const auto& t : {ta, tb}) {
      write(t / "m.onnx", "round " + std::to_string(round));
      write(t / "d" / "x.bin", std::string(4096, 'x'));
    }
    std::string ha, hb;
    std::thread t1([&] { ha = a.adopt_tree(ta); }), t2([&] { hb = b.adopt_tree(tb); });
    t1.join();
    t2.join();
    EXPECT_EQ(ha, hb);
    EXPECT_EQ(read(a.tree_path(ha) / "m.onnx"), "round " + std::to_string(round));
    EXPECT_EQ(read(a.tree_path(ha) / "d" / "x.bin").size(), 4096u);
  }
  EXPECT_EQ(entries(data / "tmp"), 0u);
}

TEST(ObjectStore, UnknownOrMalformedHashesAreNotFound) {
  fs::path data = fresh_dir("objects-unknown");
  ObjectStore os(data);
  EXPECT_EQ(error_kind([&] { os.tree_path(std::string(64, 'a')); }), Kind::NotFound);
  EXPECT_EQ(error_kind([&] { os.tree_path("../../etc"); }), Kind::NotFound);
  EXPECT_EQ(error_kind([&] { os.tree_path(std::string(64, 'A')); }), Kind::NotFound);
  EXPECT_EQ(error_kind([&] { os.get_blob(std::string(64, 'a')); }), Kind::NotFound);
  EXPECT_EQ(error_kind([&] { os.get_blob("../trtlens.db"); }), Kind::NotFound);
}

TEST(ObjectStore, BlobsRoundTrip) {
  fs::path data = fresh_dir("objects-blobs");
  ObjectStore os(data);
  std::string h = os.put_blob("abc");
  EXPECT_EQ(h, kShaAbc);
  EXPECT_EQ(os.put_blob("abc"), h);
  EXPECT_EQ(os.get_blob(h), "abc");
  EXPECT_EQ(read(data / "objects" / "blobs" / "ba" / kShaAbc), "abc");
  std::string big(3 << 20, '\0');
  big[12345] = 'x';
  EXPECT_EQ(os.get_blob(os.put_blob(big)), big);
  EXPECT_EQ(os.get_blob(os.put_blob("")), "");
  EXPECT_EQ(entries(data / "tmp"), 0u);
}

TEST(ObjectStore, OpenRemovesOnlyOldLeftovers) {
  fs::path data = fresh_dir("objects-cleanup");
  ObjectStore os(data);
  fs::path old_dir = os.make_temp_dir(), fresh = os.make_temp_dir(), busy = os.make_temp_dir();
  write(old_dir / "part", "half an upload");
  write(busy / "part", "a slow upload, still written to");
  write(data / "tmp" / "blob-old", "x");
  age(old_dir / "part", 7200);
  age(old_dir, 7200);
  age(busy, 7200);  // its folder is old, but its file is fresh
  age(data / "tmp" / "blob-old", 7200);

  auto store = Store::open(data);
  EXPECT_FALSE(fs::exists(old_dir));
  EXPECT_FALSE(fs::exists(data / "tmp" / "blob-old"));
  EXPECT_TRUE(fs::exists(fresh));
  EXPECT_TRUE(fs::exists(busy / "part"));
  EXPECT_EQ(store->objects().remove_stale_temp(std::chrono::hours(1)), 0);
}

}  // namespace
}  // namespace trtlens::store
