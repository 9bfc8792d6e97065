// Lines for clients name no server folder: paths under the data folder become
// the file's path inside its upload, or a word for the place.
#include <gtest/gtest.h>

#include <string>

#include "serve/context.h"
#include "store/store.h"
#include "support/paths.h"

namespace trtlens {
namespace {

using namespace trtlens::test;

TEST(ServerPaths, BecomeTheNamesTheUserKnows) {
  const std::string data = temp_dir("server_paths") + "/data";
  store::ObjectStore objects(data);
  const std::string tree = data + "/objects/ab/" + std::string(64, 'a');
  auto clean = [&](const std::string& text) { return serve::without_server_paths(text, objects); };

  EXPECT_EQ(clean(tree + "/sub/model.onnx: bad graph"), "sub/model.onnx: bad graph");
  EXPECT_EQ(clean("engine.json: no layer names a node of " + tree + "/model.onnx (3 nodes)"),
            "engine.json: no layer names a node of model.onnx (3 nodes)");
  EXPECT_EQ(clean(tree + ": cannot list"), "the stored upload: cannot list");
  EXPECT_EQ(clean(data + "/tmp/upload-Ab12Cd/big.onnx: cannot write: No space left on device"),
            "big.onnx: cannot write: No space left on device");
  EXPECT_EQ(clean(data + "/tmp/upload-Ab12Cd: cannot create"), "the upload: cannot create");
  EXPECT_EQ(clean(data + "/tmp/blob-x1y2z3: cannot sync"), "a stored result: cannot sync");
  EXPECT_EQ(clean(data + "/objects/blobs/cd/" + std::string(64, 'c') + ": cannot store the blob: disk full"),
            "a stored result: cannot store the blob: disk full");
  EXPECT_EQ(clean(data + "/trtlens.db: disk I/O error"), "the data folder: disk I/O error");
  EXPECT_EQ(clean(data + ": cannot use"), "the data folder: cannot use");
  // Text without the data folder is kept as it is, and a neighbour is not the data folder.
  EXPECT_EQ(clean("model.onnx: bad graph"), "model.onnx: bad graph");
  EXPECT_EQ(clean(data + "2/x: y"), data + "2/x: y");
  // Every occurrence goes.
  std::string twice = clean(tree + "/a.json: names no node of " + tree + "/m.onnx");
  EXPECT_EQ(twice, "a.json: names no node of m.onnx");
}

TEST(ServerPaths, TheDataFolderIsNamedByItsNormalPath) {
  const std::string dir = temp_dir("server_paths_relative");
  store::ObjectStore objects(dir + "/./data/");
  ASSERT_FALSE(objects.data_paths().empty());
  EXPECT_EQ(objects.data_paths()[0], dir + "/data");
  EXPECT_EQ(serve::without_server_paths(dir + "/data/tmp/upload-1/x.onnx: cut off", objects), "x.onnx: cut off");
}

}  // namespace
}  // namespace trtlens
