// `trtlens serve` as a real server on 127.0.0.1: pushes through the API,
// analysis, comparison, accounts and roles, CSRF, limits, hostile names, and
// a crash (kill -9) in the middle of an upload.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/onnx_builder.h"
#include "support/overlay_models.h"
#include "support/paths.h"
#include "support/plan_bytes.h"
#include "support/serve_process.h"
#include "support/zip_writer.h"
#include "store/backends.h"
#include "store/store.h"

namespace trtlens::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// x -> Relu -> (Sigmoid) -> y; `extra` adds a node, `custom` an op no release knows.
std::string model_bytes(bool extra = false, const std::string& custom_name = "") {
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 3, 8, 8});
  g.node("Relu", {"x"}, {"r"}, "relu");
  std::string last = "r";
  if (extra) {
    g.node("Sigmoid", {last}, {"s"}, "sigmoid");
    last = "s";
  }
  if (!custom_name.empty()) {
    mb.opset("com.example", 1);
    g.node("NotAnOp", {last}, {"c"}, custom_name, "com.example");
    last = "c";
  }
  g.output(last);
  return mb.bytes();
}

httplib::Headers bearer(const std::string& token) { return {{"Authorization", "Bearer " + token}}; }

// The first trace of the server's data folder `data` in `text` ("" when none).
std::string server_path_in(const std::string& text, const std::string& data) {
  std::error_code ec;
  for (const std::string& needle : {data, fs::weakly_canonical(data, ec).string(), std::string("/objects/"),
                                    std::string("/tmp/upload-")})
    if (!needle.empty() && text.find(needle) != std::string::npos) return needle;
  return "";
}

std::string engine_fixture(const std::string& rel) {
  return std::string(TRTLENS_SOURCE_DIR) + "/tests/fixtures/engine/" + rel;
}

// A zip of the trtexec files of tests/fixtures/engine/overlay (the engine of save_overlay_fixture_model).
std::string overlay_engine_zip() {
  const std::string zip = temp_dir("serve_overlay_engine_zip") + "/engine.zip";
  std::vector<Entry> entries;
  for (const char* f : {"overlay.onnx.engine.graph.json", "overlay.onnx.engine.profile.json",
                        "overlay.onnx.engine.build.metadata.json"})
    entries.push_back(file_entry(f, read_text(engine_fixture(std::string("overlay/") + f))));
  write_zip(zip, entries);
  return read_text(zip);
}

// POSTs the sign-in form as a browser would: with the token and cookie GET /login gave it.
httplib::Result post_login(httplib::Client& c, const std::string& token, httplib::Headers headers = {}) {
  auto form = c.Get("/login");
  std::string cookie = form->get_header_value("Set-Cookie");
  cookie = cookie.substr(0, cookie.find(';'));
  size_t at = form->body.find("name=\"login_csrf\" value=\"");
  std::string login_csrf = form->body.substr(at + 25, form->body.find('"', at + 25) - at - 25);
  headers.emplace("Cookie", cookie);
  return c.Post("/login", headers, "login_csrf=" + login_csrf + "&token=" + token, "application/x-www-form-urlencoded");
}

// Signs in through the form; returns the session cookie and the page's CSRF token.
std::pair<std::string, std::string> sign_in(httplib::Client& c, const std::string& token) {
  auto r = post_login(c, token);
  EXPECT_EQ(r->status, 303);
  std::string cookie = r->get_header_value("Set-Cookie");
  cookie = cookie.substr(0, cookie.find(';'));
  auto page = c.Get("/projects/vision", {{"Cookie", cookie}});
  EXPECT_EQ(page->status, 200);
  size_t at = page->body.find("name=\"csrf\" value=\"");
  EXPECT_NE(at, std::string::npos);
  std::string csrf = page->body.substr(at + 19, page->body.find('"', at + 19) - at - 19);
  return {cookie, csrf};
}

struct Served {
  std::string data;
  std::string token;  // write on "vision"
  std::unique_ptr<ServeProcess> server;
  explicit Served(const std::string& name, std::vector<std::string> extra = {}, const ServeLimits& limits = {}) {
    data = temp_dir(name) + "/data";
    token = make_user(data, "alice", {"vision"});
    server = std::make_unique<ServeProcess>(data, extra, limits);
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", server->port());
    c.set_read_timeout(60);
    return c;
  }
  httplib::Result push(const std::string& body, const std::string& model = "detector",
                       const std::string& query = "filename=model.onnx", const std::string& who = "") const {
    return client().Post(("/api/projects/vision/models/" + model + "/versions?" + query).c_str(),
                         bearer(who.empty() ? token : who), body, "application/octet-stream");
  }
  // Polls the analysis until it ends (or 120 s pass).
  json wait_analysis(int version, const std::string& model = "detector") const {
    json a;
    for (int i = 0; i < 1200; ++i) {
      auto r = client().Get(
          ("/api/projects/vision/models/" + model + "/versions/" + std::to_string(version) + "/analysis").c_str(),
          bearer(token));
      if (!r || r->status != 200) return json{{"error", r ? r->body : "no answer"}};
      a = json::parse(r->body);
      if (a["status"] == "done" || a["status"] == "failed") return a;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return a;
  }
};

TEST(ServeCli, PushNumbersVersionsAnalysesAndCompares) {
  Served s("serve_push");
  auto v1 = s.push(model_bytes());
  ASSERT_TRUE(v1);
  ASSERT_EQ(v1->status, 201) << v1->body;
  json j1 = json::parse(v1->body);
  EXPECT_EQ(nlohmann::ordered_json::parse(v1->body).begin().key(), "schema_version");
  EXPECT_EQ(j1["schema_version"], 1);
  EXPECT_EQ(j1["version"], 1);
  EXPECT_EQ(j1["main_file"], "model.onnx");
  EXPECT_EQ(j1["size_bytes"], model_bytes().size());
  EXPECT_EQ(j1["opsets"], "ai.onnx:13");
  EXPECT_EQ(j1["created_by"], "alice");

  auto v2 = s.push(model_bytes(true));
  ASSERT_EQ(v2->status, 201) << v2->body;
  EXPECT_EQ(json::parse(v2->body)["version"], 2);
  // The same bytes again: a new version over the same stored tree.
  auto v3 = s.push(model_bytes());
  ASSERT_EQ(v3->status, 201);
  EXPECT_EQ(json::parse(v3->body)["tree_hash"], j1["tree_hash"]);

  json a = s.wait_analysis(2);
  ASSERT_EQ(a["status"], "done") << a.dump();
  EXPECT_EQ(a["nodes"], 2);
  ASSERT_EQ(a["converts"].size(), 3u);  // the default pins
  for (const auto& pin : a["converts"]) EXPECT_TRUE(pin["converts"].get<bool>()) << pin.dump();

  auto list = s.client().Get("/api/projects/vision/models", bearer(s.token));
  ASSERT_EQ(list->status, 200);
  json models = json::parse(list->body)["models"];
  ASSERT_EQ(models.size(), 1u);
  EXPECT_EQ(models[0]["name"], "detector");
  EXPECT_EQ(models[0]["versions"], 3);
  EXPECT_EQ(models[0]["latest"]["version"], 3);

  auto versions = s.client().Get("/api/projects/vision/models/detector/versions", bearer(s.token));
  json vs = json::parse(versions->body)["versions"];
  ASSERT_EQ(vs.size(), 3u);
  EXPECT_EQ(vs[0]["version"], 3);  // newest first

  auto diff = s.client().Get("/api/projects/vision/models/detector/versions/2/diff?against=1&trt=8.6&precision=fp16",
                             bearer(s.token));
  ASSERT_EQ(diff->status, 200) << diff->body;
  json d = json::parse(diff->body);
  EXPECT_EQ(d["runtime"], "8.6 fp16");
  EXPECT_EQ(d["kept"], 1);
  ASSERT_EQ(d["added"].size(), 1u);
  EXPECT_EQ(d["added"][0]["node"], "sigmoid");
  EXPECT_EQ(d["added"][0]["verdict"], "SUPPORTED");
  EXPECT_TRUE(d["removed"].empty());

  auto check = s.client().Get("/api/projects/vision/models/detector/versions/2/check?trt=8.6&precision=fp16",
                              bearer(s.token));
  ASSERT_EQ(check->status, 200) << check->body;
  EXPECT_EQ(json::parse(check->body)["nodes"].size(), 2u);

  // The served page is the report page, and the version page frames it.
  auto page = s.client().Get("/api/openapi.json");
  ASSERT_EQ(page->status, 200);
  json api = json::parse(page->body);
  EXPECT_TRUE(api["paths"].contains("/api/projects/{project}/models/{model}/versions"));
}

TEST(ServeCli, PinnedChecksComeFromTheStoredAnalysisAndListingsStartNone) {
  Served s("serve_stored_analysis");
  auto v1 = s.push(model_bytes());
  ASSERT_EQ(v1->status, 201) << v1->body;
  json a = s.wait_analysis(1);
  ASSERT_EQ(a["status"], "done") << a.dump();
  std::string pin = a["converts"][0]["runtime"];  // "<release> fp16"
  std::string release = pin.substr(0, pin.find(' '));

  // The stored model goes away: a pinned runtime is answered from the analysis,
  // any other runtime needs the model and fails.
  store::ObjectStore objects(s.data);
  fs::remove(objects.tree_path(json::parse(v1->body)["tree_hash"]) / "model.onnx");
  auto check = [&](const std::string& query) {
    return s.client().Get(("/api/projects/vision/models/detector/versions/1/check?" + query).c_str(), bearer(s.token));
  };
  auto pinned = check("trt=" + release + "&precision=fp16");
  ASSERT_EQ(pinned->status, 200) << pinned->body;
  json doc = json::parse(pinned->body);
  EXPECT_EQ(doc["runtime"]["release"], release);
  EXPECT_EQ(doc["runtime"]["precision"], "fp16");
  ASSERT_EQ(doc["nodes"].size(), 1u);
  EXPECT_EQ(doc["nodes"][0]["name"], "relu");
  EXPECT_NE(check("trt=8.6&precision=fp32")->status, 200);

  // A version this server never analysed (added behind its back) lists as stale,
  // and listing it starts nothing; opening its analysis does.
  auto st = store::Store::open(s.data);
  fs::path tmp = objects.make_temp_dir();
  std::string bytes = model_bytes(true);
  std::ofstream(tmp / "model.onnx", std::ios::binary) << bytes;
  std::string tree = objects.adopt_tree(tmp);
  store::NewVersion added;
  added.tree_hash = tree;
  added.main_file = "model.onnx";
  added.opsets = "ai.onnx:13";
  added.size_bytes = bytes.size();
  st->add_version("vision", "detector", added, st->user_for_token(s.token)->id);
  auto listed = [&] {
    auto r = s.client().Get("/api/projects/vision/models/detector/versions", bearer(s.token));
    return json::parse(r->body)["versions"][0];
  };
  EXPECT_EQ(listed()["version"], 2);
  EXPECT_EQ(listed()["analysis"]["status"], "stale");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(listed()["analysis"]["status"], "stale");
  EXPECT_EQ(s.wait_analysis(2)["status"], "done");
  EXPECT_EQ(listed()["analysis"]["status"], "done");

  // Two stored analyses compare at a pinned runtime without either model (v1's is gone).
  auto diff = [&](const std::string& query) {
    return s.client().Get(("/api/projects/vision/models/detector/versions/2/diff?against=1&" + query).c_str(),
                          bearer(s.token));
  };
  auto stored_diff = diff("trt=" + release + "&precision=fp16");
  ASSERT_EQ(stored_diff->status, 200) << stored_diff->body;
  json d = json::parse(stored_diff->body);
  EXPECT_EQ(d["runtime"], release + " fp16");
  EXPECT_EQ(d["kept"], 1);
  ASSERT_EQ(d["added"].size(), 1u);
  EXPECT_EQ(d["added"][0]["node"], "sigmoid");
  EXPECT_NE(diff("trt=8.6&precision=fp32")->status, 200);
}

TEST(ServeCli, ModelsThatDoNotConvertSayWhichPinAndWhy) {
  Served s("serve_unsupported");
  auto v = s.push(model_bytes(false, "custom"));
  ASSERT_EQ(v->status, 201) << v->body;
  json a = s.wait_analysis(1);
  ASSERT_EQ(a["status"], "done");
  for (const auto& pin : a["converts"]) {
    EXPECT_FALSE(pin["converts"].get<bool>());
    EXPECT_EQ(pin["unsupported"], 1);
  }
}

TEST(ServeCli, BadUploadsAreRefusedAndLeaveNoVersion) {
  Served s("serve_bad_uploads", {"--max-upload-mb", "1"});
  auto not_onnx = s.push("this is not a model");
  ASSERT_EQ(not_onnx->status, 400);
  std::string error = json::parse(not_onnx->body)["error"];
  EXPECT_EQ(error.rfind("model.onnx: ", 0), 0u) << error;           // names the upload
  EXPECT_EQ(error.find(s.data), std::string::npos) << error;          // not the server's folders

  auto big = s.push(std::string(2'000'001, 'x'));
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);

  for (const char* name : {"filename=../../escape.onnx", "filename=/etc/passwd", "filename=a%5C..%5Cb.onnx"}) {
    auto r = s.push(model_bytes(), "detector", name);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << name << ": " << r->body;
  }
  EXPECT_FALSE(fs::exists(fs::path(s.data).parent_path().parent_path() / "escape.onnx"));

  // A zip of a model folder whose entries try to leave it.
  const std::string zip = temp_dir("serve_bad_zip") + "/up.zip";
  write_zip(zip, {file_entry("model.onnx", model_bytes()), file_entry("../../escape.bin", "owned")});
  auto evil_zip = s.client().Post("/api/projects/vision/models/detector/versions?filename=up.zip", bearer(s.token),
                                  read_text(zip), "application/zip");
  ASSERT_TRUE(evil_zip);
  EXPECT_EQ(evil_zip->status, 400) << evil_zip->body;
  EXPECT_NE(evil_zip->body.find("up.zip: "), std::string::npos) << evil_zip->body;
  EXPECT_FALSE(fs::exists(fs::path(s.data) / "escape.bin"));
  EXPECT_FALSE(fs::exists(fs::path(s.data).parent_path() / "escape.bin"));

  auto bad_name = s.push(model_bytes(), "..");
  EXPECT_EQ(bad_name->status, 400);
  size_t stored = 0;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(s.data) / "objects")) stored += e.is_regular_file();
  EXPECT_EQ(stored, 0u) << "a refused upload stored files";

  auto none = s.client().Get("/api/projects/vision/models/detector/versions", bearer(s.token));
  EXPECT_EQ(none->status, 404);  // no version was stored
}

// Models have the retry route engines have (issue 33): a writer asks again; a done analysis is
// answered as it is, a failed one is queued again; nobody else may.
TEST(ServeCli, AModelVersionCanBeAnalysedAgain) {
  Served s("serve_model_retry");
  ASSERT_EQ(s.push(model_bytes())->status, 201);
  ASSERT_EQ(s.wait_analysis(1)["status"], "done");
  const char* route = "/api/projects/vision/models/detector/versions/1/retry";
  auto retried = s.client().Post(route, bearer(s.token), "", "text/plain");
  ASSERT_TRUE(retried);
  ASSERT_EQ(retried->status, 200) << retried->body;
  EXPECT_EQ(json::parse(retried->body)["version"], 1);
  EXPECT_EQ(json::parse(retried->body)["analysis"]["status"], "done");
  EXPECT_EQ(s.client().Post(route, "", "text/plain")->status, 401);
  EXPECT_EQ(s.client().Post("/api/projects/vision/models/detector/versions/9/retry", bearer(s.token), "", "text/plain")
                ->status,
            404);
}

// A full disk (here: every file of the server held under 64 KiB, so the
// database's log and the stored results cannot grow) fails the analysis that
// hit it, with a state the API shows, and never the server.
TEST(ServeCli, AFullDiskFailsTheAnalysisNotTheServer) {
  Served s("serve_disk_full", {}, ServeLimits{64 * 1024});
  auto v = s.push(model_bytes());
  ASSERT_TRUE(v) << "the server stopped answering: " << s.server->log();
  ASSERT_EQ(v->status, 201) << v->body;
  json a = s.wait_analysis(1);
  ASSERT_EQ(a["status"], "failed") << a.dump() << "\n" << s.server->log();
  EXPECT_FALSE(a["message"].get<std::string>().empty());
  EXPECT_EQ(server_path_in(a.dump(), s.data), "") << a.dump();
  // An upload that meets the full disk is that request's 500, naming the upload and
  // not the server's folders; the log has the whole line.
  auto big = s.push(std::string(100 * 1024, 'x'), "detector", "filename=big.onnx");
  ASSERT_TRUE(big) << s.server->log();
  EXPECT_EQ(big->status, 500) << big->body;
  EXPECT_EQ(server_path_in(big->body, s.data), "") << big->body;
  EXPECT_NE(big->body.find("big.onnx: "), std::string::npos) << big->body;
  EXPECT_NE(s.server->log().find(s.data + "/tmp/upload-"), std::string::npos) << s.server->log();
  // Still answering, with the failure on the listing and the version.
  auto models = s.client().Get("/api/projects/vision/models", bearer(s.token));
  ASSERT_TRUE(models) << "the server died: " << s.server->log();
  ASSERT_EQ(models->status, 200) << models->body;
  EXPECT_EQ(json::parse(models->body)["models"][0]["latest"]["analysis"]["status"], "failed") << models->body;
  auto version = s.client().Get("/api/projects/vision/models/detector/versions/1", bearer(s.token));
  ASSERT_TRUE(version);
  EXPECT_EQ(version->status, 200);
  EXPECT_EQ(json::parse(version->body)["analysis"]["status"], "failed") << version->body;
  EXPECT_EQ(s.client().Get("/api/projects", bearer(s.token))->status, 200);
  // The server's log has the whole story; it then stops cleanly (it was not aborted).
  EXPECT_NE(s.server->log().find("failed"), std::string::npos) << s.server->log();
  EXPECT_EQ(s.server->stop(), 0) << s.server->log();
}

// A model deep in its zip: the analysis keys built from its path are over any
// column's comfort (tree hash + 220-byte path, and more for an engine), yet
// the push, every listing and the engine work as for any model.
TEST(ServeCli, AModelAtALongPathInItsZipWorksEverywhere) {
  Served s("serve_long_path");
  const std::string main = "m/" + std::string(207, 'a') + "/model.onnx";
  ASSERT_EQ(main.size(), 220u);
  const std::string dir = temp_dir("serve_long_path_model");
  const std::string zip = dir + "/up.zip";
  write_zip(zip, {file_entry(main, read_text(save_overlay_fixture_model(dir + "/overlay.onnx")))});
  auto push = s.client().Post("/api/projects/vision/models/deep/versions?filename=up.zip", bearer(s.token),
                              read_text(zip), "application/zip");
  ASSERT_TRUE(push);
  ASSERT_EQ(push->status, 201) << push->body;
  EXPECT_EQ(json::parse(push->body)["main_file"], main);
  EXPECT_EQ(s.wait_analysis(1, "deep")["status"], "done");

  auto engine = s.client().Post("/api/projects/vision/models/deep/versions/1/engines?filename=engine.zip&label=fp16",
                                bearer(s.token), overlay_engine_zip(), "application/zip");
  ASSERT_TRUE(engine);
  ASSERT_EQ(engine->status, 201) << engine->body;
  json engines;
  for (int i = 0; i < 1200; ++i) {
    auto r = s.client().Get("/api/projects/vision/models/deep/versions/1/engines", bearer(s.token));
    ASSERT_EQ(r->status, 200) << r->body;
    engines = json::parse(r->body)["engines"];
    ASSERT_EQ(engines.size(), 1u);
    if (engines[0]["analysis"]["status"] != "queued" && engines[0]["analysis"]["status"] != "running") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(engines[0]["analysis"]["status"], "done") << engines.dump();

  // Every reader of the project: the API listing, the pages.
  auto models = s.client().Get("/api/projects/vision/models", bearer(s.token));
  ASSERT_EQ(models->status, 200) << models->body;
  EXPECT_EQ(json::parse(models->body)["models"][0]["latest"]["analysis"]["status"], "done");
  EXPECT_EQ(s.client().Get("/api/projects/vision/models/deep/versions", bearer(s.token))->status, 200);
  auto c = s.client();
  const auto session = sign_in(c, s.token);
  const httplib::Headers cookie = {{"Cookie", session.first}};
  for (const std::string path : {"/", "/projects/vision", "/projects/vision/models/deep/versions/1",
                                 "/projects/vision/models/deep/versions/1/report",
                                 "/projects/vision/models/deep/versions/1/engines/1",
                                 "/projects/vision/models/deep/versions/1/engines/1/overlay"}) {
    auto page = c.Get(path.c_str(), cookie);
    ASSERT_TRUE(page) << path;
    EXPECT_EQ(page->status, 200) << path << ": " << page->body.substr(0, 300);
  }
  auto check = s.client().Get("/api/projects/vision/models/deep/versions/1/check", bearer(s.token));
  EXPECT_EQ(check->status, 200) << check->body;
}

// Umask 022 (files 0644 by default) for one test.
struct Umask022 {
  mode_t old = ::umask(022);
  ~Umask022() { ::umask(old); }
};

// What the server writes is its own: the data folder 0700, every folder in it
// 0700 and every file 0600 (database, its WAL, uploads, stored results),
// whatever the umask.
TEST(ServeCli, TheDataFolderIsTheServersAlone) {
  Umask022 umask;
  Served s("serve_modes");
  ASSERT_EQ(s.push(model_bytes())->status, 201);
  const std::string zip = temp_dir("serve_modes_zip") + "/up.zip";
  write_zip(zip, {folder_entry("sub/"), file_entry("sub/model.onnx", model_bytes(true))});
  auto pushed = s.client().Post("/api/projects/vision/models/zipped/versions?filename=up.zip", bearer(s.token),
                                read_text(zip), "application/zip");
  ASSERT_EQ(pushed->status, 201) << pushed->body;
  ASSERT_EQ(s.wait_analysis(1)["status"], "done");
  ASSERT_EQ(s.wait_analysis(1, "zipped")["status"], "done");

  auto mode = [](const fs::path& p) { return static_cast<unsigned>(fs::symlink_status(p).permissions()) & 0777u; };
  EXPECT_EQ(mode(s.data), 0700u);
  ASSERT_TRUE(fs::exists(fs::path(s.data) / "trtlens.db"));
  size_t files = 0, folders = 0;
  for (const auto& e : fs::recursive_directory_iterator(s.data)) {
    if (e.is_directory()) {
      ++folders;
      EXPECT_EQ(mode(e.path()), 0700u) << e.path();
    } else {
      ++files;
      EXPECT_EQ(mode(e.path()), 0600u) << e.path();
    }
  }
  EXPECT_GE(files, 8u);  // the database and its WAL, two models, their pages and checks
  EXPECT_GE(folders, 6u);
}

// An engine whose layers name no node of the model fails its analysis; that
// line, the API's error for its overlay and every page and reply about it name
// the files as they were uploaded, never where the server keeps them.
// An engine whose layers name no node of the version (another model's, or another export's)
// is no dead entry: its report card is made from the engine alone, the note says why there is
// no overlay (naming no server folder), and it can be retried or deleted.
TEST(ServeCli, AnEngineOfAnotherModelGetsItsCardANoteAndRetryOrDelete) {
  Served s("serve_engine_paths");
  ASSERT_EQ(s.push(model_bytes())->status, 201);
  const std::string base = "/api/projects/vision/models/detector/versions/1/engines";
  auto attached = s.client().Post((base + "?filename=engine.zip&label=other").c_str(), bearer(s.token),
                                  overlay_engine_zip(), "application/zip");
  ASSERT_EQ(attached->status, 201) << attached->body;
  json engine;
  std::string listing;
  for (int i = 0; i < 1200; ++i) {
    auto r = s.client().Get(base.c_str(), bearer(s.token));
    ASSERT_EQ(r->status, 200) << r->body;
    listing = r->body;
    engine = json::parse(listing)["engines"][0];
    if (engine["analysis"]["status"] == "failed" || engine["analysis"]["status"] == "done") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(engine["analysis"]["status"], "done") << listing;  // was: failed, a dead entry
  const std::string note = engine["note"];
  EXPECT_EQ(server_path_in(listing, s.data), "") << listing;
  // It names the engine's file and the model as pushed.
  EXPECT_EQ(note.rfind("overlay.onnx.engine.graph.json: ", 0), 0u) << note;
  EXPECT_NE(note.find("of model.onnx"), std::string::npos) << note;

  auto overlay = s.client().Get((base + "/1/overlay").c_str(), bearer(s.token));
  EXPECT_EQ(overlay->status, 422) << overlay->body;
  EXPECT_EQ(server_path_in(overlay->body, s.data), "") << overlay->body;

  auto c = s.client();
  const auto session = sign_in(c, s.token);
  auto card = c.Get("/projects/vision/models/detector/versions/1/engines/1/card", {{"Cookie", session.first}});
  ASSERT_TRUE(card);
  EXPECT_EQ(card->status, 200);  // the engine's own report card
  EXPECT_EQ(server_path_in(card->body, s.data), "");
  EXPECT_NE(card->body.find("trtlens-back"), std::string::npos);  // a way back to the dashboard
  auto engine_page = c.Get("/projects/vision/models/detector/versions/1/engines/1", {{"Cookie", session.first}});
  ASSERT_EQ(engine_page->status, 200);  // the engine's dashboard page, the card in its frame
  EXPECT_NE(engine_page->body.find("src=\"/projects/vision/models/detector/versions/1/engines/1/card\""),
            std::string::npos);
  EXPECT_EQ(server_path_in(engine_page->body, s.data), "");
  for (const std::string path : {"/projects/vision/models/detector/versions/1",
                                 "/projects/vision/models/detector/versions/1/engines/1/overlay"}) {
    auto page = c.Get(path.c_str(), {{"Cookie", session.first}});
    ASSERT_TRUE(page) << path;
    EXPECT_NE(page->body.find("overlay.onnx.engine.graph.json: "), std::string::npos) << path;
    EXPECT_EQ(server_path_in(page->body, s.data), "") << path << ": " << page->body;
  }
  auto version_page = c.Get("/projects/vision/models/detector/versions/1", {{"Cookie", session.first}});
  EXPECT_NE(version_page->body.find("/engines/1/delete"), std::string::npos);

  // Retry (API) answers the engine; delete removes it.
  auto retried = s.client().Post((base + "/1/retry").c_str(), bearer(s.token), "", "text/plain");
  ASSERT_EQ(retried->status, 200) << retried->body;
  EXPECT_EQ(json::parse(retried->body)["engine"], 1);
  auto deleted = s.client().Delete((base + "/1").c_str(), bearer(s.token));
  ASSERT_EQ(deleted->status, 200) << deleted->body;
  EXPECT_TRUE(json::parse(s.client().Get(base.c_str(), bearer(s.token))->body)["engines"].empty());
  EXPECT_EQ(s.client().Delete((base + "/1").c_str(), bearer(s.token))->status, 404);
}

// What an analysis stores (the report page, each pin's check, the engine's
// pages) and what the API computes live name the model and the engine's files
// as they were pushed, never where the server keeps them.
TEST(ServeCli, StoredPagesAndChecksNameNoServerPath) {
  Served s("serve_stored_paths");
  const std::string model = temp_dir("serve_stored_paths_model") + "/overlay.onnx";
  auto pushed = s.push(read_text(save_overlay_fixture_model(model)), "detector", "filename=overlay.onnx");
  ASSERT_EQ(pushed->status, 201) << pushed->body;
  json a = s.wait_analysis(1);
  ASSERT_EQ(a["status"], "done") << a.dump();
  const std::string pin = a["converts"][0]["runtime"];  // "<release> fp16"
  const std::string base = "/api/projects/vision/models/detector/versions/1";
  auto attached = s.client().Post((base + "/engines?filename=engine.zip&label=fp16").c_str(), bearer(s.token),
                                  overlay_engine_zip(), "application/zip");
  ASSERT_EQ(attached->status, 201) << attached->body;
  for (int i = 0; i < 1200; ++i) {
    json e = json::parse(s.client().Get((base + "/engines").c_str(), bearer(s.token))->body)["engines"][0];
    if (e["analysis"]["status"] == "done") break;
    ASSERT_NE(e["analysis"]["status"], "failed") << e.dump();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }

  auto stored_check = s.client().Get(
      (base + "/check?trt=" + pin.substr(0, pin.find(' ')) + "&precision=fp16").c_str(), bearer(s.token));
  ASSERT_EQ(stored_check->status, 200) << stored_check->body;
  EXPECT_EQ(json::parse(stored_check->body)["model"]["path"], "overlay.onnx") << stored_check->body.substr(0, 400);
  auto overlay = s.client().Get((base + "/engines/1/overlay").c_str(), bearer(s.token));
  ASSERT_EQ(overlay->status, 200) << overlay->body;
  EXPECT_EQ(json::parse(overlay->body)["graph_json"], "overlay.onnx.engine.graph.json");
  for (const std::string& path : {base, base + "/analysis", base + "/check?trt=8.6&precision=fp32", base + "/engines",
                                 base + "/engines/1/overlay"}) {
    auto r = s.client().Get(path.c_str(), bearer(s.token));
    ASSERT_EQ(r->status, 200) << path << ": " << r->body;
    EXPECT_EQ(server_path_in(r->body, s.data), "") << path;
  }
  EXPECT_EQ(server_path_in(stored_check->body, s.data), "");
  auto c = s.client();
  const auto session = sign_in(c, s.token);
  for (const std::string path : {"/projects/vision/models/detector/versions/1",
                                 "/projects/vision/models/detector/versions/1/report",
                                 "/projects/vision/models/detector/versions/1/engines/1",
                                 "/projects/vision/models/detector/versions/1/engines/1/overlay"}) {
    auto page = c.Get(path.c_str(), {{"Cookie", session.first}});
    ASSERT_EQ(page->status, 200) << path;
    EXPECT_EQ(server_path_in(page->body, s.data), "") << path;
  }
}

TEST(ServeCli, TokensRolesAndProjectsKeepTeamsApart) {
  Served s("serve_access");
  std::string bob = make_user(s.data, "bob", {"audio"});
  std::string carol = make_user(s.data, "carol", {"vision"}, "read");
  ASSERT_EQ(s.push(model_bytes())->status, 201);

  auto c = s.client();
  // No token, a wrong token: 401, and nothing written.
  EXPECT_EQ(c.Get("/api/projects/vision/models")->status, 401);
  EXPECT_EQ(c.Get("/api/projects/vision/models", bearer("trt_" + std::string(64, '0')))->status, 401);
  EXPECT_EQ(c.Post("/api/projects/vision/models/detector/versions", model_bytes(), "application/octet-stream")->status,
            401);
  // Project A's token cannot read or write project B; B looks absent.
  EXPECT_EQ(c.Get("/api/projects/vision/models", bearer(bob))->status, 404);
  EXPECT_EQ(s.push(model_bytes(), "detector", "filename=model.onnx", bob)->status, 404);
  EXPECT_EQ(c.Get("/api/projects/vision/models/detector/versions/1/check", bearer(bob))->status, 404);
  // A reader reads and may not write.
  EXPECT_EQ(c.Get("/api/projects/vision/models", bearer(carol))->status, 200);
  EXPECT_EQ(s.push(model_bytes(), "detector", "filename=model.onnx", carol)->status, 403);
  auto projects = c.Get("/api/projects", bearer(bob));
  json p = json::parse(projects->body)["projects"];
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0]["name"], "audio");
  auto versions = c.Get("/api/projects/vision/models/detector/versions", bearer(s.token));
  EXPECT_EQ(json::parse(versions->body)["versions"].size(), 1u);
}


TEST(ServeCli, FormsNeedTheSessionsCsrfTokenAndPagesEscapeModelStrings) {
  Served s("serve_forms");
  auto c = s.client();
  EXPECT_EQ(c.Get("/")->status, 303);  // to the sign-in page
  EXPECT_EQ(post_login(c, "nope")->status, 401);
  // Not a structured binding: clang 14 (the sanitizer build) cannot capture one in a lambda.
  const auto session = sign_in(c, s.token);
  const std::string cookie = session.first, csrf = session.second;
  ASSERT_FALSE(csrf.empty());
  // Behind a TLS proxy the session cookie is Secure; on plain HTTP it cannot be.
  auto tls = post_login(c, s.token, {{"X-Forwarded-Proto", "https"}});
  EXPECT_NE(tls->get_header_value("Set-Cookie").find("; Secure"), std::string::npos);
  auto plain = post_login(c, s.token);
  EXPECT_EQ(plain->get_header_value("Set-Cookie").find("Secure"), std::string::npos);
  EXPECT_NE(plain->get_header_value("Set-Cookie").find("HttpOnly; SameSite=Strict"), std::string::npos);

  const std::string evil = "<script>alert(1)</script>";
  auto form = [&](const std::string& token_field) {
    httplib::MultipartFormDataItems items = {{"csrf", token_field, "", ""},
                                             {"model", "evil", "", ""},
                                             {"file", model_bytes(false, evil), "m.onnx", "application/octet-stream"}};
    return c.Post("/projects/vision/upload", {{"Cookie", cookie}}, items);
  };
  EXPECT_EQ(form("forged")->status, 403);
  auto ok = form(csrf);
  ASSERT_EQ(ok->status, 303) << ok->body;
  EXPECT_EQ(ok->get_header_value("Location"), "/projects/vision/models/evil/versions/1");
  // The API under a session cookie: reads yes, writes only with X-CSRF-Token.
  EXPECT_EQ(c.Get("/api/projects/vision/models", {{"Cookie", cookie}})->status, 200);
  EXPECT_EQ(c.Post("/api/projects/vision/models/evil/versions", {{"Cookie", cookie}}, model_bytes(),
                   "application/octet-stream")
                ->status,
            403);

  json a = s.wait_analysis(1, "evil");
  ASSERT_EQ(a["status"], "done");
  ASSERT_EQ(s.push(model_bytes(true), "evil")->status, 201);  // the evil node is removed: the diff names it
  for (const std::string path : {"/projects/vision/models/evil/versions/1",
                                 "/projects/vision/models/evil/versions/2/diff?against=1", "/projects/vision"}) {
    auto page = c.Get(path.c_str(), {{"Cookie", cookie}});
    ASSERT_EQ(page->status, 200) << path;
    EXPECT_EQ(page->body.find(evil), std::string::npos) << path;
    EXPECT_NE(page->get_header_value("Content-Security-Policy").find("script-src 'self'"), std::string::npos);
  }
  auto diff = c.Get("/projects/vision/models/evil/versions/2/diff?against=1", {{"Cookie", cookie}});
  EXPECT_NE(diff->body.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  // The diff graph's removed node and the pin's failing-nodes row open the report at that node,
  // its name percent-encoded in the anchor and the anchor's '&' escaped in the attribute.
  const std::string anchored = "/versions/1/report#node=%3Cscript%3Ealert%281%29%3C/script%3E&amp;trt=";
  EXPECT_NE(diff->body.find(anchored), std::string::npos) << diff->body;
  // The first pin's link on the version page, "…/nodes?trt=R&amp;precision=P".
  const std::string v1 = c.Get("/projects/vision/models/evil/versions/1", {{"Cookie", cookie}})->body;
  const size_t pin_at = v1.find("/nodes?trt="), pin_end = v1.find('"', pin_at);
  ASSERT_NE(pin_end, std::string::npos) << v1;
  std::string query = v1.substr(pin_at + 7, pin_end - pin_at - 7);  // "trt=R&amp;precision=P"
  const std::string release = query.substr(4, query.find('&') - 4), precision = query.substr(query.rfind('=') + 1);
  auto failing = c.Get("/projects/vision/models/evil/versions/1/nodes?trt=" + release + "&precision=" + precision,
                       {{"Cookie", cookie}});
  ASSERT_EQ(failing->status, 200) << release << " " << precision;
  EXPECT_EQ(failing->body.find(evil), std::string::npos);
  EXPECT_NE(failing->body.find("<a class=\"node-link\" href=\"/projects/vision/models/evil" + anchored + release +
                               "&amp;precision=" + precision + "\"><code>&lt;script&gt;"),
            std::string::npos)
      << failing->body;
  auto report = c.Get("/projects/vision/models/evil/versions/1/report", {{"Cookie", cookie}});
  ASSERT_EQ(report->status, 200);
  EXPECT_EQ(report->body.find(evil), std::string::npos);

  // Signing out ends the session.
  ASSERT_EQ(c.Post("/logout", {{"Cookie", cookie}}, "csrf=" + csrf, "application/x-www-form-urlencoded")->status, 303);
  EXPECT_EQ(c.Get("/projects/vision", {{"Cookie", cookie}})->status, 303);
}

// What a form of a writer may make the server keep is bounded: its first part
// is the CSRF token, checked before anything else is kept, and it holds a few
// fields of a few KiB (here a thousand: refused at the 33rd).
TEST(ServeCli, FormsKeepAFewFieldsAndCheckTheCsrfTokenFirst) {
  Served s("serve_form_fields");
  auto c = s.client();
  const auto session = sign_in(c, s.token);
  const httplib::Headers cookie = {{"Cookie", session.first}};
  const httplib::MultipartFormData file = {"file", model_bytes(), "m.onnx", "application/octet-stream"};

  httplib::MultipartFormDataItems many = {{"csrf", session.second, "", ""}, {"model", "many", "", ""}};
  for (int i = 0; i < 1000; ++i) many.push_back({"f" + std::to_string(i), std::string(100, 'v'), "", ""});
  many.push_back(file);
  auto r = c.Post("/projects/vision/upload", cookie, many);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413) << r->body;
  EXPECT_NE(r->body.find("more than 32 fields"), std::string::npos) << r->body;

  // Fields before the token: refused at the first, whatever follows.
  httplib::MultipartFormDataItems first = {{"model", "early", "", ""}, {"csrf", session.second, "", ""}, file};
  EXPECT_EQ(c.Post("/projects/vision/upload", cookie, first)->status, 403);
  // A wrong token is refused before the next part (a 5 KiB field would be 413).
  httplib::MultipartFormDataItems forged = {{"csrf", "forged", "", ""}, {"model", std::string(5000, 'x'), "", ""}};
  EXPECT_EQ(c.Post("/projects/vision/upload", cookie, forged)->status, 403);
  // The API token of a writer does not post forms.
  EXPECT_EQ(c.Post("/projects/vision/upload", bearer(s.token), many)->status, 403);

  // Nothing of them was recorded, and the server answers as before.
  EXPECT_EQ(c.Get("/api/projects/vision/models", bearer(s.token))->body.find("many"), std::string::npos);
  httplib::MultipartFormDataItems good = {{"csrf", session.second, "", ""}, {"model", "good", "", ""}, file};
  auto ok = c.Post("/projects/vision/upload", cookie, good);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 303) << ok->body;
  EXPECT_EQ(c.Get("/projects/vision", cookie)->status, 200);
}

// --max-upload-mb bounds a form's files together, not each one: two files of
// just over half the limit are 413. Sent chunked, so that no Content-Length
// lets httplib refuse the body before the form is read.
TEST(ServeCli, TheUploadLimitCountsEveryFileOfAForm) {
  Served s("serve_form_total", {"--max-upload-mb", "1"});
  auto c = s.client();
  const auto session = sign_in(c, s.token);
  const std::string boundary = "trtlens-test-boundary";
  auto part = [&](const std::string& name, const std::string& filename, const std::string& data) {
    return "--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + name + "\"" +
           (filename.empty() ? "" : "; filename=\"" + filename + "\"\r\nContent-Type: application/octet-stream") +
           "\r\n\r\n" + data + "\r\n";
  };
  auto send = [&](size_t each) {
    const std::string body = part("csrf", "", session.second) + part("model", "", "halves") +
                             part("file", "model.onnx", std::string(each, 'x')) +
                             part("file", "weights.bin", std::string(each, 'w')) + "--" + boundary + "--\r\n";
    return c.Post("/projects/vision/upload", {{"Cookie", session.first}}, body,
                  "multipart/form-data; boundary=" + boundary);
  };
  auto over = send(500'001);  // 1,000,002 bytes of files: each under the limit, both over it
  ASSERT_TRUE(over) << "no answer";
  EXPECT_EQ(over->status, 413) << over->body;  // on its Content-Length, before a byte is read
  EXPECT_NE(over->body.find("at most 1000000"), std::string::npos) << over->body;
  // A chunked form (whose size is not known up front) is not read at all.
  auto chunked = c.Post(
      "/projects/vision/upload", {{"Cookie", session.first}},
      [](size_t, httplib::DataSink& sink) {
        sink.write("--x\r\n", 5);
        sink.done();
        return true;
      },
      "multipart/form-data; boundary=x");
  ASSERT_TRUE(chunked);
  EXPECT_EQ(chunked->status, 411);
  // Under the limit together: read whole, then refused for what it holds (no model in model.onnx).
  auto under = send(400'000);
  ASSERT_TRUE(under);
  EXPECT_EQ(under->status, 400) << under->body;
  EXPECT_EQ(s.client().Get("/api/projects/vision/models", bearer(s.token))->status, 200);
}

TEST(ServeCli, KillNineDuringAnUploadKeepsEveryAcknowledgedVersion) {
  Served s("serve_kill9");
  std::vector<std::string> acknowledged;
  for (int i = 0; i < 3; ++i) {
    auto r = s.push(model_bytes(i % 2 == 1));
    ASSERT_EQ(r->status, 201);
    acknowledged.push_back(json::parse(r->body)["tree_hash"]);
  }
  // A 64 MB upload sent slowly; the server dies a quarter of the way through.
  std::atomic<size_t> sent{0};
  std::thread upload([&] {
    httplib::Client c("127.0.0.1", s.server->port());
    const std::string chunk(1 << 20, 'x');
    c.Post("/api/projects/vision/models/detector/versions?filename=big.onnx", bearer(s.token), 64u << 20,
           [&](size_t offset, size_t length, httplib::DataSink& sink) {
             std::this_thread::sleep_for(std::chrono::milliseconds(20));
             sink.write(chunk.data(), std::min(length, chunk.size()));
             sent = offset + std::min(length, chunk.size());
             return true;
           },
           "application/octet-stream");
  });
  while (sent < (16u << 20)) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  s.server->kill9();
  upload.join();

  s.server = std::make_unique<ServeProcess>(s.data);
  auto versions = s.client().Get("/api/projects/vision/models/detector/versions", bearer(s.token));
  ASSERT_EQ(versions->status, 200);
  json vs = json::parse(versions->body)["versions"];
  ASSERT_EQ(vs.size(), 3u);  // the acknowledged ones, and no half version
  for (size_t i = 0; i < vs.size(); ++i) EXPECT_EQ(vs[i]["tree_hash"], acknowledged[2 - i]);
  // Their files are whole: each still analyses, and new pushes number on.
  EXPECT_EQ(s.wait_analysis(3)["status"], "done");
  auto next = s.push(model_bytes(), "detector", "filename=model.onnx&force=1");  // v3's files again
  ASSERT_EQ(next->status, 201);
  EXPECT_EQ(json::parse(next->body)["version"], 4);
}

TEST(ServeCli, TwoServersOnOneDataFolderNumberVersionsTogether) {
  Served s("serve_two");
  ServeProcess second(s.data);
  std::vector<std::thread> pushers;
  std::atomic<int> created{0};
  for (int i = 0; i < 8; ++i)
    pushers.emplace_back([&, i] {
      httplib::Client c("127.0.0.1", i % 2 ? second.port() : s.server->port());
      c.set_read_timeout(60);
      for (int k = 0; k < 3; ++k) {
        // force: pushers race, so a push may follow one of the same files (no change otherwise)
        auto r = c.Post("/api/projects/vision/models/detector/versions?filename=m.onnx&force=1", bearer(s.token),
                        model_bytes(k % 2 == 0), "application/octet-stream");
        if (r && r->status == 201) ++created;
      }
    });
  for (auto& t : pushers) t.join();
  EXPECT_EQ(created, 24);
  auto versions = s.client().Get("/api/projects/vision/models/detector/versions", bearer(s.token));
  json vs = json::parse(versions->body)["versions"];
  ASSERT_EQ(vs.size(), 24u);
  for (size_t i = 0; i < vs.size(); ++i) EXPECT_EQ(vs[i]["version"], 24 - static_cast<int>(i));
}

// Several servers behind a proxy: one PostgreSQL database, one data folder.
TEST(ServeCli, TwoServersShareOnePostgresDatabase) {
  using store::test::PostgresBackend;
  PostgresBackend::start();
  if (!PostgresBackend::skip_reason().empty()) GTEST_SKIP() << PostgresBackend::skip_reason();
  const std::string url = PostgresBackend::new_database();
  const std::string data = temp_dir("serve_postgres") + "/data";
  const std::string token = make_user(data, "alice", {"vision"}, "write", {"--db", url});
  ServeProcess one(data, {"--db", url}), two(data, {"--db", url});
  std::vector<std::thread> pushers;
  std::atomic<int> created{0};
  for (int i = 0; i < 6; ++i)
    pushers.emplace_back([&, i] {
      httplib::Client c("127.0.0.1", i % 2 ? two.port() : one.port());
      c.set_read_timeout(60);
      for (int k = 0; k < 3; ++k) {
        auto r = c.Post("/api/projects/vision/models/detector/versions?filename=m.onnx&force=1", bearer(token),
                        model_bytes(k % 2 == 0), "application/octet-stream");
        if (r && r->status == 201) ++created;
      }
    });
  for (auto& t : pushers) t.join();
  EXPECT_EQ(created, 18);
  // Either server sees every version, numbered 18..1.
  httplib::Client c("127.0.0.1", two.port());
  auto versions = c.Get("/api/projects/vision/models/detector/versions", bearer(token));
  ASSERT_EQ(versions->status, 200) << versions->body;
  json vs = json::parse(versions->body)["versions"];
  ASSERT_EQ(vs.size(), 18u);
  for (size_t i = 0; i < vs.size(); ++i) EXPECT_EQ(vs[i]["version"], 18 - static_cast<int>(i));
  EXPECT_EQ(fs::exists(fs::path(data) / "trtlens.db"), false) << "metadata went to SQLite";
  one.stop();
  two.stop();
  PostgresBackend::stop();
}

// The real `trtlens push` against the real server: a model with external data
// goes up as a zip of its folder, and --wait turns the analysis into an exit code.
TEST(ServeCli, PushCommandUploadsExternalDataAndWaits) {
  Served s("serve_push_command");
  const std::string dir = temp_dir("serve_push_command_model");
  const std::string model = save_external_data_model(dir);
  RunResult r = run_trtlens({"push", model, "--to", s.server->url(), "--project", "vision", "--name", "big",
                             "--wait", "--format", "json"},
                            {"TRTLENS_TOKEN=" + s.token});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json v = json::parse(r.out);
  EXPECT_EQ(v["version"], 1);
  EXPECT_EQ(v["main_file"], fs::path(model).filename().string());
  uint64_t on_disk = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) on_disk += e.file_size();
  EXPECT_EQ(v["size_bytes"], on_disk);  // the model and its weights file
  EXPECT_EQ(v["analysis"]["status"], "done");

  const std::string custom = temp_dir("serve_push_command_custom") + "/custom.onnx";
  write_text(custom, model_bytes(false, "custom"));
  r = run_trtlens({"push", custom, "--to", s.server->url(), "--project", "vision", "--name", "custom", "--wait"},
                  {"TRTLENS_TOKEN=" + s.token});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // analysed, and does not convert
  r = run_trtlens({"push", custom, "--to", s.server->url(), "--project", "vision", "--name", "custom"},
                  {"TRTLENS_TOKEN=trt_" + std::string(64, 'f')});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(ServeCli, AdminRefusesBadNamesWithOneLine) {
  std::string data = temp_dir("serve_admin") + "/data";
  RunResult r = run_trtlens({"admin", "--data", data, "user", "../x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  r = run_trtlens({"admin", "--data", data, "grant", "nobody", "vision", "write"});
  EXPECT_EQ(r.exit_code, 2);
  r = run_trtlens({"serve", "--data", data, "--pin", "8.6"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("RELEASE:PRECISION"), std::string::npos) << r.err;
  r = run_trtlens({"serve", "--data", data, "--db", "postgresql://nobody@/none?host=/nonexistent"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// Issue 23: a pin may name a deployment target (RELEASE:PRECISION:TARGET): its converts, its stored
// check (narrowed to the target, with DLA placement), the badge's link and /check?target= follow it.
TEST(ServeCli, APinMayNameATarget) {
  std::string data = temp_dir("serve_target_pin_bad") + "/data";
  for (const auto& [pins, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"8.5:fp16:jetson-nano-9000"}, "unknown target 'jetson-nano-9000'; known: "},
           {{"11.1:fp16:orin"}, "TensorRT 11.1 does not run on orin"},
           {{"8.5:fp16:"}, "8.5:fp16:: an empty target"},
           {{"8.5:fp16:orin-dla", "8.5:fp16:orin-dla"}, "8.5:fp16:orin-dla is given twice"}}) {
    std::vector<std::string> args = {"serve", "--data", data};
    for (const std::string& p : pins) args.insert(args.end(), {"--pin", p});
    RunResult r = run_trtlens(args);
    EXPECT_EQ(r.exit_code, 2) << pins[0];
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }

  Served s("serve_target_pin", {"--pin", "8.5:fp16:orin-dla", "--pin", "8.6:fp16"});
  ASSERT_EQ(s.push(model_bytes())->status, 201);
  json a = s.wait_analysis(1);
  ASSERT_EQ(a["status"], "done") << a.dump();
  ASSERT_EQ(a["converts"].size(), 2u) << a.dump();
  EXPECT_EQ(a["converts"][0]["runtime"], "8.5 fp16 orin-dla");
  EXPECT_EQ(a["converts"][1]["runtime"], "8.6 fp16");
  auto check = [&](const std::string& query) {
    return s.client().Get(("/api/projects/vision/models/detector/versions/1/check?" + query).c_str(), bearer(s.token));
  };
  auto pinned = check("trt=8.5&precision=fp16&target=orin-dla");
  ASSERT_EQ(pinned->status, 200) << pinned->body;
  json doc = json::parse(pinned->body);
  EXPECT_EQ(doc["runtime"]["target"]["name"], "orin-dla");
  EXPECT_TRUE(doc.contains("dla")) << pinned->body;
  auto live = check("trt=8.6&precision=fp16&target=orin");  // not pinned: judged now, narrowed too
  ASSERT_EQ(live->status, 200) << live->body;
  EXPECT_EQ(json::parse(live->body)["runtime"]["target"]["name"], "orin");
  EXPECT_FALSE(json::parse(check("trt=8.6&precision=fp16")->body)["runtime"].contains("target"));
  EXPECT_EQ(check("trt=8.5&precision=fp16&target=nope")->status, 400);
  EXPECT_EQ(check("trt=11.1&precision=fp16&target=orin")->status, 400);

  auto c = s.client();
  const auto session = sign_in(c, s.token);
  auto page = c.Get("/projects/vision/models/detector/versions/1", {{"Cookie", session.first}});
  ASSERT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("/versions/1/nodes?trt=8.5&amp;precision=fp16&amp;target=orin-dla"), std::string::npos)
      << page->body;
  auto nodes = c.Get("/projects/vision/models/detector/versions/1/nodes?trt=8.5&precision=fp16&target=orin-dla",
                     {{"Cookie", session.first}});
  EXPECT_EQ(nodes->status, 200) << nodes->body;
  EXPECT_NE(nodes->body.find("8.5 fp16 orin-dla"), std::string::npos) << nodes->body;
  EXPECT_NE(nodes->body.find("/versions/1/report#trt=8.5&amp;precision=fp16&amp;target=orin-dla\""), std::string::npos)
      << nodes->body;  // the report at the pin, its target included
}

// Each pin may name its own target: each is narrowed to its own device (its converts, DLA share
// and stored check); the report page carries the first one's Target select.
TEST(ServeCli, PinsMayNameDifferentTargets) {
  Served s("serve_two_targets", {"--pin", "8.5:fp16:orin-dla", "--pin", "10.8:fp8:h100"});
  ASSERT_EQ(s.push(model_bytes(true))->status, 201);
  json a = s.wait_analysis(1);
  ASSERT_EQ(a["status"], "done") << a.dump();
  ASSERT_EQ(a["converts"].size(), 2u) << a.dump();
  EXPECT_EQ(a["converts"][0]["runtime"], "8.5 fp16 orin-dla");
  EXPECT_TRUE(a["converts"][0].contains("dla_nodes"));
  EXPECT_EQ(a["converts"][1]["runtime"], "10.8 fp8 h100");
  EXPECT_FALSE(a["converts"][1].contains("dla_nodes"));  // a GPU: no DLA share
  const std::string v1 = "/api/projects/vision/models/detector/versions/1";
  auto h100 = s.client().Get((v1 + "/check?trt=10.8&precision=fp8&target=h100").c_str(), bearer(s.token));
  ASSERT_EQ(h100->status, 200) << h100->body;
  EXPECT_EQ(json::parse(h100->body)["runtime"]["target"]["name"], "h100");
  auto orin = s.client().Get((v1 + "/check?trt=8.5&precision=fp16&target=orin-dla").c_str(), bearer(s.token));
  EXPECT_TRUE(json::parse(orin->body).contains("dla"));
  // Project pins take two targets as well.
  RunResult pins = run_trtlens({"admin", "--data", s.data, "pins", "vision", "8.5:fp16:orin-dla", "10.8:fp8:h100"});
  EXPECT_EQ(pins.exit_code, 0) << pins.err;
  EXPECT_EQ(pins.out, "8.5:fp16:orin-dla 10.8:fp8:h100\n");
  auto c = s.client();
  const auto session = sign_in(c, s.token);
  auto report = c.Get("/projects/vision/models/detector/versions/1/report", {{"Cookie", session.first}});
  ASSERT_EQ(report->status, 200);
  EXPECT_NE(report->body.find("orin-dla"), std::string::npos);  // the page's Target: the first pin's
}

// Issue 22: an engine is judged at the release given when it is attached, else the one its
// metadata records, else the newest of its graph.json layout's major; an unknown one is 400.
TEST(ServeCli, EnginesAreJudgedAtTheReleaseGivenOrRecorded) {
  Served s("serve_engine_release");
  const std::string model = temp_dir("serve_engine_release_model") + "/overlay.onnx";
  ASSERT_EQ(s.push(read_text(save_overlay_fixture_model(model)), "detector", "filename=overlay.onnx")->status, 201);
  const std::string base = "/api/projects/vision/models/detector/versions/1/engines";
  auto attach = [&](const std::string& query, const std::string& body, const std::string& type) {
    return s.client().Post((base + "?" + query).c_str(), bearer(s.token), body, type);
  };
  auto given = attach("filename=engine.zip&label=a&release=10.0", overlay_engine_zip(), "application/zip");
  ASSERT_EQ(given->status, 201) << given->body;
  EXPECT_EQ(json::parse(given->body)["release"], "10.0");
  EXPECT_EQ(json::parse(given->body)["release_source"], "given when the engine was attached");
  auto recorded = attach("filename=engine.zip&label=b", overlay_engine_zip(), "application/zip");
  ASSERT_EQ(recorded->status, 201) << recorded->body;
  EXPECT_EQ(json::parse(recorded->body)["release"], "8.6");
  EXPECT_EQ(json::parse(recorded->body)["release_source"], "engine metadata (TensorRT 8.6.1)");
  auto layout = attach("filename=overlay.onnx.engine.graph.json&label=c",
                       read_text(engine_fixture("overlay/overlay.onnx.engine.graph.json")), "application/octet-stream");
  ASSERT_EQ(layout->status, 201) << layout->body;
  const json l = json::parse(layout->body);
  EXPECT_FALSE(l["release"].get<std::string>().empty()) << l.dump();
  EXPECT_EQ(l["release_source"].get<std::string>().rfind("graph.json layout ", 0), 0u) << l.dump();
  auto unknown = attach("filename=engine.zip&label=d&release=7.9", overlay_engine_zip(), "application/zip");
  EXPECT_EQ(unknown->status, 400) << unknown->body;
  EXPECT_NE(unknown->body.find("release: "), std::string::npos) << unknown->body;
  EXPECT_EQ(json::parse(s.client().Get(base.c_str(), bearer(s.token))->body)["engines"].size(), 3u);

  // The overlay is judged at that release and says where it came from.
  auto overlay = s.client().Get((base + "/1/overlay").c_str(), bearer(s.token));
  ASSERT_EQ(overlay->status, 200) << overlay->body;
  const json o = json::parse(overlay->body);
  EXPECT_EQ(o["runtime"]["release"], "10.0");
  EXPECT_EQ(o["runtime"]["release_source"], "given when the engine was attached");

  // The attach form takes the release too.
  auto c = s.client();
  const auto session = sign_in(c, s.token);
  auto page = c.Get("/projects/vision/models/detector/versions/1", {{"Cookie", session.first}});
  EXPECT_NE(page->body.find("name=\"release\""), std::string::npos);
  EXPECT_NE(page->body.find("TensorRT 10.0 (given when the engine was attached)"), std::string::npos);
}

// Issue 22: a plan attached with the engine's files tells the release from its header
// (bytes 24-27 of the 10.0+ layout), ahead of the metadata; an 8.x header's heuristic comes
// after the metadata; a release given wins; a plan that is not one, or of a release the
// knowledge base does not know, tells nothing; a plan alone is refused in one line.
TEST(ServeCli, APlanAttachedWithTheEngineTellsTheRelease) {
  Served s("serve_engine_plan_release");
  const std::string model = temp_dir("serve_engine_plan_model") + "/overlay.onnx";
  ASSERT_EQ(s.push(read_text(save_overlay_fixture_model(model)), "detector", "filename=overlay.onnx")->status, 201);
  const std::string base = "/api/projects/vision/models/detector/versions/1/engines";
  // The overlay fixture's trtexec files, with `plan` as overlay.onnx.engine; without the
  // build metadata ("TensorRT version" 8.6.1) when `metadata` is false.
  auto zip_with = [&](const std::string& plan, bool metadata) {
    const std::string zip = temp_dir("serve_engine_plan_zip") + "/engine.zip";
    std::vector<Entry> entries = {file_entry("overlay.onnx.engine", plan)};
    for (const char* f : {"overlay.onnx.engine.graph.json", "overlay.onnx.engine.profile.json",
                          "overlay.onnx.engine.build.metadata.json"})
      if (metadata || std::string(f).find("metadata") == std::string::npos)
        entries.push_back(file_entry(f, read_text(engine_fixture(std::string("overlay/") + f))));
    write_zip(zip, entries);
    return read_text(zip);
  };
  auto attach = [&](const std::string& query, const std::string& body) {
    auto r = s.client().Post((base + "?filename=engine.zip&" + query).c_str(), bearer(s.token), body,
                             "application/zip");
    EXPECT_EQ(r->status, 201) << r->body;
    return r->status == 201 ? json::parse(r->body) : json::object();
  };
  json e = attach("label=plan10", zip_with(plan_10(10, 3, 0, 26), true));
  EXPECT_EQ(e["release"], "10.3");
  EXPECT_EQ(e["release_source"], "plan header (TensorRT 10.3.0.26)");
  e = attach("label=given&release=10.0", zip_with(plan_10(10, 3, 0, 26), true));
  EXPECT_EQ(e["release"], "10.0");
  EXPECT_EQ(e["release_source"], "given when the engine was attached");
  e = attach("label=plan8", zip_with(plan_8(213), true));  // a heuristic: the metadata wins
  EXPECT_EQ(e["release"], "8.6");
  EXPECT_EQ(e["release_source"], "engine metadata (TensorRT 8.6.1)");
  e = attach("label=plan8-alone", zip_with(plan_8(213), false));
  EXPECT_EQ(e["release"], "8.4");
  EXPECT_EQ(e["release_source"].get<std::string>().rfind("plan header (TensorRT 8.4; heuristic: serialization "
                                                         "number 213",
                                                         0),
            0u)
      << e.dump();
  e = attach("label=not-a-plan", zip_with("these bytes are no plan at all, not even close", true));
  EXPECT_EQ(e["release_source"], "engine metadata (TensorRT 8.6.1)");
  e = attach("label=unknown-release", zip_with(plan_10(10, 99, 0, 1), true));
  EXPECT_EQ(e["release_source"], "engine metadata (TensorRT 8.6.1)");
  e = attach("label=truncated", zip_with(plan_10(10, 3, 0, 26).substr(0, 20), false));
  EXPECT_EQ(e["release_source"].get<std::string>().rfind("graph.json layout ", 0), 0u) << e.dump();

  auto alone = s.client().Post((base + "?filename=model.plan").c_str(), bearer(s.token), plan_10(10, 3, 0, 26),
                               "application/octet-stream");
  EXPECT_EQ(alone->status, 400) << alone->body;
  EXPECT_EQ(json::parse(alone->body)["error"],
            "model.plan: a plan alone is not read without TensorRT: attach it with trtexec's JSON files (graph.json "
            "from --exportLayerInfo, profile.json from --exportProfile), or a zip of them");
  EXPECT_EQ(json::parse(s.client().Get(base.c_str(), bearer(s.token))->body)["engines"].size(), 7u);

  // The version page lists where each release came from; its form offers the known releases.
  auto c = s.client();
  const auto session = sign_in(c, s.token);
  auto page = c.Get("/projects/vision/models/detector/versions/1", {{"Cookie", session.first}});
  EXPECT_NE(page->body.find("TensorRT 10.3 (plan header (TensorRT 10.3.0.26))"), std::string::npos);
  EXPECT_NE(page->body.find("<datalist id=\"trt-releases\"><option value=\""), std::string::npos);
}

// Issue 22: the same files pushed again are "no change: same as vN" unless forced; a push
// records its git commit, branch and tag (push --tag/--git-sha/--branch, or the CI's variables).
TEST(ServeCli, SameFilesAreNoChangeAndPushesRecordGitAndTags) {
  Served s("serve_same_bytes");
  ASSERT_EQ(s.push(model_bytes())->status, 201);
  auto again = s.push(model_bytes());
  ASSERT_EQ(again->status, 200) << again->body;
  json j = json::parse(again->body);
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["unchanged"], true);
  EXPECT_EQ(j["message"].get<std::string>().rfind("no change: same as version 1", 0), 0u) << j.dump();
  auto forced = s.push(model_bytes(), "detector", "filename=model.onnx&force=1");
  ASSERT_EQ(forced->status, 201) << forced->body;
  EXPECT_EQ(json::parse(forced->body)["version"], 2);

  const std::string file = temp_dir("serve_same_bytes_model") + "/model.onnx";
  write_text(file, model_bytes(true));
  const std::vector<std::string> push = {"push", file, "--to", s.server->url(), "--project", "vision",
                                         "--name", "detector", "--tag", "production"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = push;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  RunResult r = run_trtlens(push, {"TRTLENS_TOKEN=" + s.token, "GITHUB_SHA=0123456789abcdef0123",
                                   "GITHUB_REF_NAME=main"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("pushed vision/detector version 3 ", 0), 0u) << r.out;
  auto v3 = json::parse(s.client().Get("/api/projects/vision/models/detector/versions/3", bearer(s.token))->body);
  EXPECT_EQ(v3["git_sha"], "0123456789abcdef0123");
  EXPECT_EQ(v3["branch"], "main");
  EXPECT_EQ(v3["tags"], json::array({"production"}));
  EXPECT_NE(v3["io"].get<std::string>().find("x FLOAT[1,3,8,8] -> s FLOAT"), std::string::npos) << v3.dump();
  r = run_trtlens(with({"--git-sha", "fedcba", "--branch", "release/2"}),
                  {"TRTLENS_TOKEN=" + s.token, "GITHUB_SHA=ignored"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("no change: same as vision/detector version 3 ", 0), 0u) << r.out;
  EXPECT_EQ(json::parse(s.client().Get("/api/projects/vision/models/detector/versions", bearer(s.token))->body)
                ["versions"].size(),
            3u);
  r = run_trtlens(with({"--force", "--git-sha", "fedcba", "--branch", "release/2"}),
                  {"TRTLENS_TOKEN=" + s.token, "GITHUB_SHA=ignored"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto v4 = json::parse(s.client().Get("/api/projects/vision/models/detector/versions/4", bearer(s.token))->body);
  EXPECT_EQ(v4["git_sha"], "fedcba");
  EXPECT_EQ(v4["branch"], "release/2");
  EXPECT_EQ(v4["tags"], json::array({"production"}));  // the tag moved
  EXPECT_TRUE(json::parse(s.client().Get("/api/projects/vision/models/detector/versions/3", bearer(s.token))->body)
                  ["tags"].empty());
  std::vector<std::string> bad_tag = push;
  bad_tag.back() = "bad tag";
  r = run_trtlens(bad_tag, {"TRTLENS_TOKEN=" + s.token});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// Issue 22: the diff says what changed by op type, opset, inputs and outputs, and per pin.
TEST(ServeCli, TheDiffSummarisesByOpTypeOpsetAndPin) {
  Served s("serve_diff_summary");
  ASSERT_EQ(s.push(model_bytes())->status, 201);
  ModelBuilder mb(17);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 3, 8, 8});
  g.node("Sigmoid", {"x"}, {"s"}, "sigmoid");
  g.node("Sigmoid", {"s"}, {"t"}, "sigmoid2");
  g.output("t");
  ASSERT_EQ(s.push(mb.bytes())->status, 201);
  ASSERT_EQ(s.wait_analysis(1)["status"], "done");
  ASSERT_EQ(s.wait_analysis(2)["status"], "done");
  json a = s.wait_analysis(2);
  const std::string pin = a["converts"][0]["runtime"];
  auto diff = s.client().Get(("/api/projects/vision/models/detector/versions/2/diff?against=1&trt=" +
                              pin.substr(0, pin.find(' ')) + "&precision=fp16").c_str(),
                             bearer(s.token));
  ASSERT_EQ(diff->status, 200) << diff->body;
  const json sum = json::parse(diff->body)["summary"];
  EXPECT_EQ(sum["text"], "+2 Sigmoid, -1 Relu") << sum.dump();
  EXPECT_EQ(sum["opsets"]["before"], "ai.onnx:13");
  EXPECT_EQ(sum["opsets"]["after"], "ai.onnx:17");
  EXPECT_EQ(sum["opsets"]["changed"], true);
  EXPECT_EQ(sum["inputs_outputs"]["changed"], true) << sum.dump();
  ASSERT_EQ(sum["pins"].size(), a["converts"].size());
  EXPECT_EQ(sum["pins"][0]["converts_after"], true);
  auto c = s.client();
  const auto session = sign_in(c, s.token);
  auto page = c.Get("/projects/vision/models/detector/versions/2/diff?against=1", {{"Cookie", session.first}});
  ASSERT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("+2 Sigmoid, -1 Relu"), std::string::npos);
  EXPECT_NE(page->body.find("opsets: ai.onnx:13 → ai.onnx:17"), std::string::npos);
  // One arrow on the inputs-and-outputs line: the change reads "was …, now …".
  const size_t io = page->body.find("inputs and outputs: was x FLOAT[1,3,8,8] → ");
  ASSERT_NE(io, std::string::npos) << page->body;
  const std::string io_line = page->body.substr(io, page->body.find("</li>", io) - io);
  EXPECT_NE(io_line.find(", now x FLOAT[1,3,8,8] → t FLOAT"), std::string::npos) << io_line;
  EXPECT_EQ(io_line.find("-&gt;"), std::string::npos) << io_line;
}

// Issue 22: the diff draws the changed nodes as a graph (API: in the JSON, and alone as SVG
// or DOT; the page: inline), added green, removed red, edited amber, neighbours grey.
TEST(ServeCli, TheDiffDrawsTheChangedNodes) {
  Served s("serve_diff_graph");
  ASSERT_EQ(s.push(model_bytes(true))->status, 201);  // x -> relu -> sigmoid -> s
  ModelBuilder mb(13);
  auto g = mb.graph();
  g.input("x", kFloat, {1, 3, 8, 8});
  g.node("Relu", {"x"}, {"r"}, "relu");
  g.node("Tanh", {"r"}, {"t"}, "tanh");
  g.node("Sigmoid", {"t"}, {"s"}, "sigmoid");  // now fed by tanh: edited
  g.output("s");
  ASSERT_EQ(s.push(mb.bytes())->status, 201);
  ASSERT_EQ(s.wait_analysis(1)["status"], "done");
  ASSERT_EQ(s.wait_analysis(2)["status"], "done");
  const std::string pin = s.wait_analysis(2)["converts"][0]["runtime"];
  const std::string diff = "/api/projects/vision/models/detector/versions/2/diff?against=1&trt=" +
                           pin.substr(0, pin.find(' ')) + "&precision=fp16";
  for (const std::string& at : {diff, std::string("/api/projects/vision/models/detector/versions/2/diff?against=1&"
                                                  "trt=8.6&precision=int8")}) {  // stored rows, and judged now
    auto r = s.client().Get(at.c_str(), bearer(s.token));
    ASSERT_EQ(r->status, 200) << r->body;
    const json graph = json::parse(r->body)["graph"];
    std::map<std::string, std::string> kinds;
    for (const json& n : graph["nodes"]) kinds[n["node"]] = n["kind"];
    EXPECT_EQ(kinds, (std::map<std::string, std::string>{{"tanh", "added"}, {"sigmoid", "edited"}, {"relu", "context"}}))
        << graph.dump();
    EXPECT_EQ(graph["changed"], 2);
    EXPECT_EQ(graph["edges"].size(), 3u) << graph.dump();  // relu->sigmoid (v1), relu->tanh, tanh->sigmoid (v2)
  }
  auto svg = s.client().Get((diff + "&format=svg").c_str(), bearer(s.token));
  ASSERT_EQ(svg->status, 200) << svg->body;
  EXPECT_EQ(svg->get_header_value("Content-Type"), "image/svg+xml");
  EXPECT_NE(svg->body.find("class=\"node dg_node dg_added\""), std::string::npos) << svg->body;
  // Each node opens its version's report at that node and the diff's runtime; the SVG stays XML (no bare '&').
  EXPECT_NE(svg->body.find("xlink:href=\"/projects/vision/models/detector/versions/2/report#node=tanh&amp;trt=" +
                           pin.substr(0, pin.find(' ')) + "&amp;precision=fp16\""),
            std::string::npos)
      << svg->body;
  EXPECT_EQ(svg->body.find("&trt="), std::string::npos);
  auto dot = s.client().Get((diff + "&format=dot").c_str(), bearer(s.token));
  ASSERT_EQ(dot->status, 200);
  EXPECT_EQ(dot->body.rfind("digraph", 0), 0u) << dot->body;
  auto bad = s.client().Get((diff + "&format=png").c_str(), bearer(s.token));
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(json::parse(bad->body)["error"], "format must be json, svg or dot");

  auto c = s.client();
  const auto session = sign_in(c, s.token);
  auto page = c.Get("/projects/vision/models/detector/versions/2/diff?against=1", {{"Cookie", session.first}});
  ASSERT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("<section class=\"diff-graph\">"), std::string::npos);
  EXPECT_NE(page->body.find("class=\"node dg_node dg_edited\""), std::string::npos);
}

// Issue 22: administration. Tokens are listed and revoked (a revoked token gets 401), users
// and projects listed, models described, renamed and deleted, versions deleted without losing
// files another version shares.
TEST(ServeCli, AdminRevokesTokensAndDeletesWithoutLosingSharedFiles) {
  Served s("serve_admin_actions");
  const std::string second = run_trtlens({"admin", "--data", s.data, "token", "alice"}).out;
  ASSERT_EQ(second.size(), 69u) << second;
  RunResult listed = run_trtlens({"admin", "--data", s.data, "tokens"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(std::count(listed.out.begin(), listed.out.end(), '\n'), 3) << listed.out;  // a header and two tokens
  EXPECT_EQ(listed.out.rfind("id\tuser\ttoken\tissued\tlast used\tstate\n", 0), 0u) << listed.out;
  EXPECT_EQ(listed.out.find(s.token), std::string::npos);  // never the token itself
  EXPECT_NE(listed.out.find("2\talice\t…" + second.substr(64, 4)), std::string::npos) << listed.out;
  const std::string revoked = second.substr(0, 68);
  ASSERT_EQ(s.client().Get("/api/projects", bearer(revoked))->status, 200);
  ASSERT_EQ(run_trtlens({"admin", "--data", s.data, "revoke", "2"}).exit_code, 0);
  auto refused = s.client().Get("/api/projects", bearer(revoked));
  EXPECT_EQ(refused->status, 401);  // revoked: 401, saying so
  EXPECT_EQ(json::parse(refused->body)["error"].get<std::string>().rfind("token revoked", 0), 0u) << refused->body;
  auto refused_project = s.client().Get("/api/projects/vision/models", bearer(revoked));
  EXPECT_EQ(refused_project->status, 401);
  EXPECT_NE(refused_project->body.find("token revoked"), std::string::npos) << refused_project->body;
  // Not a revoked token: how to sign in, as before.
  EXPECT_NE(s.client().Get("/api/projects", bearer("trt_" + std::string(64, '1')))->body.find("sign in: send"),
            std::string::npos);
  // push with it: the server's line.
  const std::string pushed_file = temp_dir("serve_admin_actions_push") + "/model.onnx";
  write_text(pushed_file, model_bytes());
  RunResult revoked_push = run_trtlens({"push", pushed_file, "--to", s.server->url(), "--project", "vision", "--name",
                                        "detector"},
                                       {"TRTLENS_TOKEN=" + revoked});
  EXPECT_EQ(revoked_push.exit_code, 2);
  EXPECT_NE(revoked_push.err.find("HTTP 401: token revoked"), std::string::npos) << revoked_push.err;
  EXPECT_EQ(std::count(revoked_push.err.begin(), revoked_push.err.end(), '\n'), 1) << revoked_push.err;
  EXPECT_EQ(s.client().Get("/api/projects", bearer(s.token))->status, 200);
  RunResult again = run_trtlens({"admin", "--data", s.data, "revoke", "2"});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_EQ(again.err, "trtlens: token 2 is revoked already\n");
  RunResult unknown = run_trtlens({"admin", "--data", s.data, "revoke", "9"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err, "trtlens: no token with id 9\n");
  listed = run_trtlens({"admin", "--data", s.data, "tokens"});
  EXPECT_NE(listed.out.find("\trevoked "), std::string::npos) << listed.out;  // still listed, as revoked
  EXPECT_NE(listed.out.find("\tactive\n"), std::string::npos) << listed.out;

  RunResult users = run_trtlens({"admin", "--data", s.data, "users"});
  EXPECT_EQ(users.out.rfind("user\ttokens\tcreated\troles\tadmin\n", 0), 0u) << users.out;
  EXPECT_NE(users.out.find("alice\t1 token(s)\t"), std::string::npos) << users.out;
  EXPECT_NE(users.out.find("vision:write\t-\n"), std::string::npos) << users.out;  // every row has five columns
  EXPECT_NE(users.out.find("vision:write"), std::string::npos) << users.out;

  // v1 and v3 share their files; deleting v1 keeps them for v3.
  ASSERT_EQ(s.push(model_bytes())->status, 201);
  ASSERT_EQ(s.push(model_bytes(true))->status, 201);
  ASSERT_EQ(s.push(model_bytes(), "detector", "filename=model.onnx&force=1")->status, 201);
  const std::string shared = json::parse(s.push(model_bytes(), "detector", "filename=model.onnx")->body)["tree_hash"];
  const fs::path shared_dir = fs::path(s.data) / "objects" / shared.substr(0, 2) / shared;
  // Analyses settled first: one finishing during a collection at --min-age 0 stores its result
  // after the marking, and the sweep takes it (only the default hour keeps such files).
  for (int v = 1; v <= 3; ++v) ASSERT_EQ(s.wait_analysis(v)["status"], "done") << v;
  RunResult projects = run_trtlens({"admin", "--data", s.data, "projects"});
  EXPECT_EQ(projects.out.rfind("project\tmodels\tcreated\tpins\n", 0), 0u) << projects.out;
  EXPECT_NE(projects.out.find("vision\t1 model(s)"), std::string::npos) << projects.out;
  RunResult del = run_trtlens({"admin", "--data", s.data, "delete", "vision", "detector", "1"});
  ASSERT_EQ(del.exit_code, 0) << del.err;
  EXPECT_EQ(del.out.rfind("deleted vision/detector version 1 and its 0 engine(s)\nremoved ", 0), 0u) << del.out;
  EXPECT_NE(del.out.find("left to the next `admin gc`"), std::string::npos) << del.out;
  ASSERT_EQ(run_trtlens({"admin", "--data", s.data, "gc", "--min-age", "0"}).exit_code, 0);
  EXPECT_TRUE(fs::is_directory(shared_dir));  // v3 names it
  EXPECT_EQ(s.client().Get("/api/projects/vision/models/detector/versions/1", bearer(s.token))->status, 404);
  EXPECT_EQ(s.wait_analysis(3)["status"], "done");
  auto v3 = s.client().Get("/projects/vision/models/detector/versions/3/files/model.onnx", bearer(s.token));
  ASSERT_EQ(v3->status, 200);
  EXPECT_EQ(v3->body, model_bytes());  // the stored file downloads
  EXPECT_EQ(s.client().Get("/projects/vision/models/detector/versions/3/files/..%2Ftrtlens.db", bearer(s.token))->status,
            404);
  // API: deleting v3 too leaves the files to the next collection.
  auto gone = s.client().Delete("/api/projects/vision/models/detector/versions/3", bearer(s.token));
  ASSERT_EQ(gone->status, 200) << gone->body;
  ASSERT_EQ(run_trtlens({"admin", "--data", s.data, "gc", "--min-age", "0"}).exit_code, 0);
  EXPECT_FALSE(fs::exists(shared_dir));

  // Describe, tag and rename through the API; read-only callers may not.
  const std::string reader = make_user(s.data, "bob", {"vision"}, "read");
  auto described = s.client().Post("/api/projects/vision/models/detector", bearer(s.token),
                                   "description=front+camera&tag=production&version=2&name=front", 
                                   "application/x-www-form-urlencoded");
  ASSERT_EQ(described->status, 200) << described->body;
  const json d = json::parse(described->body);
  EXPECT_EQ(d["name"], "front");
  EXPECT_EQ(d["description"], "front camera");
  EXPECT_EQ(d["latest"]["tags"], json::array({"production"}));
  EXPECT_EQ(s.client().Post("/api/projects/vision/models/front", bearer(reader), "description=x",
                            "application/x-www-form-urlencoded")->status,
            403);
  EXPECT_EQ(s.client().Delete("/api/projects/vision/models/front", bearer(reader))->status, 403);
  // admin rename and delete say what they did.
  RunResult renamed = run_trtlens({"admin", "--data", s.data, "rename", "vision", "front", "rear"});
  ASSERT_EQ(renamed.exit_code, 0) << renamed.err;
  EXPECT_EQ(renamed.out, "renamed model vision/front to vision/rear (its versions, engines and tags go with it)\n");
  ASSERT_EQ(s.client().Post("/api/projects/vision/models/rear/versions/2/engines?filename=engine.zip&label=old",
                            bearer(s.token), overlay_engine_zip(), "application/zip")->status,
            201);
  RunResult relabelled =
      run_trtlens({"admin", "--data", s.data, "rename", "vision", "rear", "new", "--version", "2", "--engine", "1"});
  ASSERT_EQ(relabelled.exit_code, 0) << relabelled.err;
  EXPECT_EQ(relabelled.out, "relabelled engine 1 of vision/rear version 2: \"old\" → \"new\"\n");
  RunResult gone_engine = run_trtlens({"admin", "--data", s.data, "delete", "vision", "rear", "2", "1"});
  EXPECT_EQ(gone_engine.out.rfind("deleted engine 1 of vision/rear version 2\n", 0), 0u) << gone_engine.out;
  ASSERT_EQ(s.client().Post("/api/projects/vision/models/rear/versions/2/engines?filename=engine.zip&label=again",
                            bearer(s.token), overlay_engine_zip(), "application/zip")->status,
            201);
  RunResult gone_model = run_trtlens({"admin", "--data", s.data, "delete", "vision", "rear"});
  ASSERT_EQ(gone_model.exit_code, 0) << gone_model.err;
  EXPECT_EQ(gone_model.out.rfind("deleted model vision/rear: 1 version(s), 1 engine(s)\n", 0), 0u) << gone_model.out;
  ASSERT_EQ(s.push(model_bytes(), "front")->status, 201);
  ASSERT_EQ(s.client().Delete("/api/projects/vision/models/front", bearer(s.token))->status, 200);
  EXPECT_TRUE(json::parse(s.client().Get("/api/projects/vision/models", bearer(s.token))->body)["models"].empty());
}

// Issue 22: one access-log line per request (method, path, status, user, ms) in the common log
// style; error pages for people; the served report opens at the first pin and links back.
TEST(ServeCli, AccessLogErrorPagesAndLinksBack) {
  Served s("serve_access_log", {"--pin", "8.6:fp16"});
  ASSERT_EQ(s.client().Get("/api/projects", bearer(s.token))->status, 200);
  ASSERT_EQ(s.client().Get("/api/projects")->status, 401);
  // Refused at the front door (a body over 16 KiB on a route that is not an upload): logged too.
  auto big = s.client().Post("/api/projects", std::string(20000, 'x'), "text/plain");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  // The server logs a request after answering it: wait for the three lines (up to 10 s on a busy machine).
  std::string log = s.server->log();
  auto logged = [&] {
    for (const char* l : {"\"GET /api/projects HTTP/1.1\" 200", "\"GET /api/projects HTTP/1.1\" 401",
                          "\"POST /api/projects HTTP/1.1\" 413"})
      if (log.find(l) == std::string::npos) return false;
    return true;
  };
  for (int i = 0; i < 200 && !logged(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    log = s.server->log();
  }
  // The line of a request: it holds `request` and `status`.
  auto line_of = [&](const std::string& request, const std::string& status) {
    for (size_t at = log.find(request); at != std::string::npos; at = log.find(request, at + 1)) {
      size_t begin = log.rfind('\n', at) + 1, end = log.find('\n', at);
      std::string line = log.substr(begin, end - begin);
      if (line.find(request + " " + status + " ") != std::string::npos) return line;
    }
    return std::string();
  };
  const std::string ok = line_of("\"GET /api/projects HTTP/1.1\"", "200");
  EXPECT_EQ(ok.rfind("127.0.0.1 - alice [", 0), 0u) << log;
  EXPECT_NE(ok.find(" +0000] \"GET"), std::string::npos) << ok;
  EXPECT_EQ(ok.substr(ok.size() - 2), "ms") << ok;
  EXPECT_EQ(line_of("\"GET /api/projects HTTP/1.1\"", "401").rfind("127.0.0.1 - - [", 0), 0u) << log;
  const std::string refused = line_of("\"POST /api/projects HTTP/1.1\"", "413");
  ASSERT_GT(refused.size(), 9u) << log;
  EXPECT_EQ(refused.rfind("127.0.0.1 - - [", 0), 0u) << log;
  EXPECT_EQ(refused.substr(refused.size() - 9), "413 0 0ms") << refused;

  ASSERT_EQ(s.push(model_bytes(false, "custom"))->status, 201);
  ASSERT_EQ(s.wait_analysis(1)["status"], "done");
  auto c = s.client();
  const auto session = sign_in(c, s.token);
  const httplib::Headers browser = {{"Cookie", session.first}, {"Accept", "text/html,application/xhtml+xml"}};
  auto missing = c.Get("/projects/vision/models/detector/versions/9", browser);
  EXPECT_EQ(missing->status, 404);
  EXPECT_NE(missing->get_header_value("Content-Type").find("text/html"), std::string::npos);
  EXPECT_NE(missing->body.find("has no version 9"), std::string::npos) << missing->body;
  EXPECT_NE(missing->body.find("href=\"/\""), std::string::npos);
  // Scripts still get JSON.
  auto api = c.Get("/api/projects/vision/models/detector/versions/9", {{"Cookie", session.first}});
  EXPECT_EQ(api->get_header_value("Content-Type"), "application/json");

  // The pins link to the failing nodes; the report opens at the first pin and links back.
  auto page = c.Get("/projects/vision/models/detector/versions/1", {{"Cookie", session.first}});
  EXPECT_NE(page->body.find("/versions/1/nodes?trt=8.6&amp;precision=fp16"), std::string::npos) << page->body;
  auto nodes = c.Get("/projects/vision/models/detector/versions/1/nodes?trt=8.6&precision=fp16",
                     {{"Cookie", session.first}});
  ASSERT_EQ(nodes->status, 200);
  EXPECT_NE(nodes->body.find("href=\"/projects/vision/models/detector/versions/1/report#node=custom&amp;trt=8.6&amp;"
                             "precision=fp16\"><code>custom</code>"),
            std::string::npos)
      << nodes->body;  // each failing node opens the report there
  EXPECT_NE(nodes->body.find("1 node(s) UNSUPPORTED or UNKNOWN"), std::string::npos);
  auto report = c.Get("/projects/vision/models/detector/versions/1/report", {{"Cookie", session.first}});
  ASSERT_EQ(report->status, 200);
  EXPECT_NE(report->body.find("trtlens-back"), std::string::npos);
  EXPECT_NE(report->body.find("target=\"_top\""), std::string::npos);
  auto found = c.Get("/?q=detector", {{"Cookie", session.first}});
  EXPECT_NE(found->body.find(">detector</a>"), std::string::npos);
  auto none = c.Get("/?q=nothing-like-it", {{"Cookie", session.first}});
  EXPECT_NE(none->body.find("No model matches."), std::string::npos);
  auto failing = c.Get("/projects/vision?q=converts:no", {{"Cookie", session.first}});
  EXPECT_NE(failing->body.find(">detector</a>"), std::string::npos);
}

// Issue 22: the admin page and /api/admin, for site administrators only: users, projects and
// tokens (never a token), and revoking one, after which it gets 401 on the API, cannot sign in,
// and the browsers signed in with it are signed out.
TEST(ServeCli, AdministratorsListAndRevokeTokensOnThePageAndTheApi) {
  Served s("serve_admin_page");
  RunResult root_user = run_trtlens({"admin", "--data", s.data, "user", "root", "--admin"});
  ASSERT_EQ(root_user.exit_code, 0) << root_user.err;
  const std::string root = root_user.out.substr(0, 68);
  auto c = s.client();

  // The API: administrators only.
  EXPECT_EQ(c.Get("/api/admin/tokens")->status, 401);
  auto refused = c.Get("/api/admin/tokens", bearer(s.token));
  EXPECT_EQ(refused->status, 403);
  EXPECT_NE(refused->body.find("alice is not an administrator"), std::string::npos) << refused->body;
  auto tokens = c.Get("/api/admin/tokens", bearer(root));
  ASSERT_EQ(tokens->status, 200) << tokens->body;
  EXPECT_EQ(tokens->body.find(s.token), std::string::npos);  // never a token
  EXPECT_EQ(tokens->body.find(root), std::string::npos);
  json t = json::parse(tokens->body)["tokens"];
  ASSERT_EQ(t.size(), 2u) << t.dump();
  EXPECT_EQ(t[0]["user"], "alice");
  EXPECT_EQ(t[0]["hint"], "…" + s.token.substr(64));
  EXPECT_EQ(t[0]["revoked"], false);
  EXPECT_TRUE(t[1]["last_used_at"].is_string()) << t.dump();  // root's, just now
  json users = json::parse(c.Get("/api/admin/users", bearer(root))->body)["users"];
  ASSERT_EQ(users.size(), 2u);
  EXPECT_EQ(users[0]["name"], "alice");
  EXPECT_EQ(users[0]["admin"], false);
  EXPECT_EQ(users[0]["roles"], json::parse(R"([{"project": "vision", "role": "write"}])"));
  EXPECT_EQ(users[1]["admin"], true);
  json projects = json::parse(c.Get("/api/admin/projects", bearer(root))->body)["projects"];
  ASSERT_EQ(projects.size(), 1u);
  EXPECT_EQ(projects[0]["pins_source"], "server");
  EXPECT_EQ(projects[0]["pins"].size(), 3u);

  // The page: a 403 page for others; for administrators users, projects and tokens, each with a revoke button.
  const auto alice_session = sign_in(c, s.token);
  auto not_admin = c.Get("/admin", {{"Cookie", alice_session.first}, {"Accept", "text/html"}});
  EXPECT_EQ(not_admin->status, 403);
  EXPECT_NE(not_admin->body.find("Only administrators"), std::string::npos) << not_admin->body;
  EXPECT_EQ(c.Get("/projects/vision", {{"Cookie", alice_session.first}})->body.find("href=\"/admin\""),
            std::string::npos);
  // root has no role on vision: sign in and read the CSRF token off the admin page.
  auto login = post_login(c, root);
  ASSERT_EQ(login->status, 303);
  std::string root_cookie = login->get_header_value("Set-Cookie");
  root_cookie = root_cookie.substr(0, root_cookie.find(';'));
  auto page = c.Get("/admin", {{"Cookie", root_cookie}});
  ASSERT_EQ(page->status, 200) << page->body;
  EXPECT_NE(page->body.find("href=\"/admin\""), std::string::npos);  // linked in the header
  EXPECT_NE(page->body.find("<code>…" + s.token.substr(64) + "</code>"), std::string::npos);
  EXPECT_EQ(page->body.find(s.token), std::string::npos);
  EXPECT_NE(page->body.find("action=\"/admin/tokens/1/revoke\""), std::string::npos);
  EXPECT_NE(page->body.find("root <span class=\"tag\">admin</span>"), std::string::npos);
  const size_t at = page->body.find("name=\"csrf\" value=\"");
  ASSERT_NE(at, std::string::npos);
  const std::string root_csrf = page->body.substr(at + 19, 64);

  // A third token of alice's, used by a script and by a browser, then revoked on the page.
  const std::string third = run_trtlens({"admin", "--data", s.data, "token", "alice"}).out.substr(0, 68);
  ASSERT_EQ(c.Get("/api/projects", bearer(third))->status, 200);
  ASSERT_EQ(c.Get("/projects/vision", bearer(third))->status, 200);
  const auto third_session = sign_in(c, third);
  ASSERT_EQ(c.Get("/", {{"Cookie", third_session.first}})->status, 200);
  const httplib::Headers form_root = {{"Cookie", root_cookie}};
  EXPECT_EQ(c.Post("/admin/tokens/3/revoke", form_root, "csrf=wrong", "application/x-www-form-urlencoded")->status,
            403);
  EXPECT_EQ(c.Post("/admin/tokens/3/revoke", {{"Cookie", alice_session.first}}, "csrf=" + alice_session.second,
                   "application/x-www-form-urlencoded")->status,
            403);  // not an administrator
  ASSERT_EQ(c.Get("/api/projects", bearer(third))->status, 200);  // refused forms changed nothing
  auto revoked = c.Post("/admin/tokens/3/revoke", form_root, "csrf=" + root_csrf, "application/x-www-form-urlencoded");
  ASSERT_EQ(revoked->status, 303) << revoked->body;
  EXPECT_EQ(revoked->get_header_value("Location"), "/admin");
  EXPECT_EQ(c.Get("/api/projects", bearer(third))->status, 401);  // the API
  auto page_by_token = c.Get("/projects/vision", bearer(third));  // the pages
  EXPECT_EQ(page_by_token->status, 303);
  EXPECT_EQ(page_by_token->get_header_value("Location"), "/login");
  auto signed_out = c.Get("/", {{"Cookie", third_session.first}});
  EXPECT_EQ(signed_out->status, 303);  // its browser is signed out
  EXPECT_EQ(signed_out->get_header_value("Location"), "/login");
  EXPECT_EQ(post_login(c, third)->status, 401);  // and cannot sign in again
  EXPECT_EQ(c.Get("/", {{"Cookie", alice_session.first}})->status, 200);  // alice's other session stays
  EXPECT_NE(c.Get("/admin", form_root)->body.find("<tr data-token=\"3\" class=\"revoked\">"), std::string::npos);

  // Revoking through the API: 200, then 409; 404 for an unknown id; a session needs X-CSRF-Token.
  const std::string fourth = run_trtlens({"admin", "--data", s.data, "token", "alice"}).out.substr(0, 68);
  EXPECT_EQ(c.Post("/api/admin/tokens/4/revoke", bearer(s.token), "", "text/plain")->status, 403);
  EXPECT_EQ(c.Post("/api/admin/tokens/4/revoke", form_root, "", "text/plain")->status, 403);  // no X-CSRF-Token
  ASSERT_EQ(c.Get("/api/projects", bearer(fourth))->status, 200);
  auto by_api = c.Post("/api/admin/tokens/4/revoke", bearer(root), "", "text/plain");
  ASSERT_EQ(by_api->status, 200) << by_api->body;
  EXPECT_EQ(json::parse(by_api->body)["revoked"], 4);
  EXPECT_EQ(c.Get("/api/projects", bearer(fourth))->status, 401);
  EXPECT_EQ(c.Post("/api/admin/tokens/4/revoke", bearer(root), "", "text/plain")->status, 409);
  EXPECT_EQ(c.Post("/api/admin/tokens/99/revoke", bearer(root), "", "text/plain")->status, 404);
  t = json::parse(c.Get("/api/admin/tokens?user=alice", bearer(root))->body)["tokens"];
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[1]["revoked"], true);
  EXPECT_TRUE(t[1]["revoked_at"].is_string());
  EXPECT_EQ(c.Get("/api/admin/tokens?user=nobody", bearer(root))->status, 404);

  // promote and demote.
  ASSERT_EQ(run_trtlens({"admin", "--data", s.data, "promote", "alice"}).exit_code, 0);
  EXPECT_EQ(c.Get("/api/admin/users", bearer(s.token))->status, 200);
  EXPECT_NE(run_trtlens({"admin", "--data", s.data, "users"}).out.find("vision:write\tadmin\n"), std::string::npos);
  ASSERT_EQ(run_trtlens({"admin", "--data", s.data, "demote", "alice"}).exit_code, 0);
  EXPECT_EQ(c.Get("/api/admin/users", bearer(s.token))->status, 403);
  RunResult nobody = run_trtlens({"admin", "--data", s.data, "promote", "nobody"});
  EXPECT_EQ(nobody.exit_code, 2);
  EXPECT_EQ(nobody.err, "trtlens: no user named nobody\n");
}

// Issue 22: a project's pins, set by its writers or an administrator (page, API, `admin pins`),
// checked as --pin is; its lists, served report, checks and version diffs use them. The analysis
// is keyed by the pins, so new pins analyse a version again when it is next opened, while other
// projects, engines and the results at the former pins are kept.
TEST(ServeCli, ProjectPinsAreCheckedStoredAndKeyTheAnalysis) {
  Served s("serve_project_pins");
  const std::string reader = make_user(s.data, "bob", {"vision"}, "read");
  ASSERT_EQ(run_trtlens({"admin", "--data", s.data, "project", "audio"}).exit_code, 0);
  ASSERT_EQ(run_trtlens({"admin", "--data", s.data, "grant", "alice", "audio", "write"}).exit_code, 0);
  auto c = s.client();
  auto post_pins = [&](const std::string& token, const std::string& body, const std::string& project = "vision") {
    return c.Post(("/api/projects/" + project + "/pins").c_str(), bearer(token), body,
                  "application/x-www-form-urlencoded");
  };
  auto pins_of = [&](const std::string& project = "vision") {
    return json::parse(c.Get(("/api/projects/" + project + "/pins").c_str(), bearer(s.token))->body);
  };
  auto runtimes = [](const json& analysis) {
    std::vector<std::string> out;
    for (const json& p : analysis["converts"]) out.push_back(p["runtime"]);
    return out;
  };

  // Before: the server's pins. A version of vision, the same files in audio, and an engine.
  json before = pins_of();
  EXPECT_EQ(before["source"], "server");
  ASSERT_EQ(before["pins"].size(), 3u);
  ASSERT_EQ(s.push(model_bytes())->status, 201);
  ASSERT_EQ(c.Post("/api/projects/audio/models/detector/versions?filename=model.onnx", bearer(s.token), model_bytes(),
                   "application/octet-stream")->status,
            201);
  const std::string overlay_model = temp_dir("serve_project_pins_model") + "/overlay.onnx";
  ASSERT_EQ(s.push(read_text(save_overlay_fixture_model(overlay_model)), "overlay", "filename=overlay.onnx")->status, 201);
  const std::string engines = "/api/projects/vision/models/overlay/versions/1/engines";
  ASSERT_EQ(c.Post((engines + "?filename=engine.zip&label=a").c_str(), bearer(s.token), overlay_engine_zip(),
                   "application/zip")->status,
            201);
  json a1 = s.wait_analysis(1);
  ASSERT_EQ(a1["status"], "done") << a1.dump();
  EXPECT_EQ(runtimes(a1).size(), 3u);
  json engine;
  for (int i = 0; i < 600; ++i) {
    engine = json::parse(c.Get(engines.c_str(), bearer(s.token))->body)["engines"][0];
    if (engine["analysis"]["status"] == "done") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(engine["analysis"]["status"], "done") << engine.dump();

  // Bad input: 400 with one line naming the pin, 403 for a reader, nothing stored.
  auto unknown = post_pins(s.token, "pins=8.6:fp16+99.1:fp16");
  EXPECT_EQ(unknown->status, 400);
  EXPECT_NE(unknown->body.find("pins of vision 99.1:fp16: unknown TensorRT release '99.1'"), std::string::npos)
      << unknown->body;
  auto target = post_pins(s.token, "pins=8.6:fp16:no-such-device");
  EXPECT_EQ(target->status, 400);
  EXPECT_NE(target->body.find("unknown target"), std::string::npos) << target->body;
  auto many = post_pins(s.token, "pins=8.6:fp32,8.6:fp16,8.6:int8,8.6:bf16,8.6:fp8,8.6:best,10.16:fp16,10.16:int8,9.3:fp16");
  EXPECT_EQ(many->status, 400);
  EXPECT_NE(many->body.find("9 pins; at most 8"), std::string::npos) << many->body;
  auto twice = post_pins(s.token, "pins=8.6:fp16,8.6.1:FP16");
  EXPECT_EQ(twice->status, 400);
  EXPECT_NE(twice->body.find("8.6:fp16 is given twice"), std::string::npos) << twice->body;
  EXPECT_EQ(post_pins(s.token, "precision=fp16")->status, 400);  // no pins field
  EXPECT_EQ(post_pins(reader, "pins=8.6:int8")->status, 403);
  EXPECT_EQ(post_pins(s.token, "pins=8.6:int8", "nowhere")->status, 404);
  EXPECT_EQ(pins_of()["source"], "server");

  // Set by a writer: spelled canonically; the list, the stored checks, the report and the diff use them.
  auto set = post_pins(s.token, "pins=8.6.1:INT8+10.16:fp16");
  ASSERT_EQ(set->status, 200) << set->body;
  json now = json::parse(set->body);
  EXPECT_EQ(now["source"], "project");
  EXPECT_EQ(now["pins"], json::array({"8.6:int8", "10.16:fp16"}));
  EXPECT_EQ(now["runtimes"], json::array({"8.6 int8", "10.16 fp16"}));
  json a2 = s.wait_analysis(1);
  ASSERT_EQ(a2["status"], "done") << a2.dump();
  EXPECT_EQ(runtimes(a2), (std::vector<std::string>{"8.6 int8", "10.16 fp16"}));  // analysed again at the new pins
  auto check = c.Get("/api/projects/vision/models/detector/versions/1/check?trt=8.6&precision=int8", bearer(s.token));
  ASSERT_EQ(check->status, 200);
  const auto session = sign_in(c, s.token);
  const httplib::Headers browser = {{"Cookie", session.first}};
  auto report = c.Get("/projects/vision/models/detector/versions/1/report", browser);
  ASSERT_EQ(report->status, 200);
  json d = embedded_json(report->body, "trtlens-data");
  EXPECT_EQ(d["releases"][d["initial"][0].get<int>()]["name"], "8.6");  // opens at the first pin
  EXPECT_EQ(d["precisions"][d["initial"][1].get<int>()], "int8");
  auto list = c.Get("/projects/vision", browser);
  EXPECT_NE(list->body.find("/versions/1/nodes?trt=8.6&amp;precision=int8"), std::string::npos) << list->body;
  EXPECT_NE(list->body.find("value=\"8.6:int8 10.16:fp16\""), std::string::npos);  // the form holds them
  EXPECT_NE(list->body.find("this project's"), std::string::npos);
  EXPECT_EQ(c.Get("/projects/vision/models/detector/versions/1/nodes?trt=8.6&precision=int8", browser)->status, 200);
  ASSERT_EQ(s.push(model_bytes(true))->status, 201);
  ASSERT_EQ(s.wait_analysis(2)["status"], "done");
  json diff = json::parse(
      c.Get("/api/projects/vision/models/detector/versions/2/diff?against=1&trt=8.6&precision=int8", bearer(s.token))->body);
  std::vector<std::string> diff_pins;
  for (const json& p : diff["summary"]["pins"]) diff_pins.push_back(p["runtime"]);
  EXPECT_EQ(diff_pins, (std::vector<std::string>{"8.6 int8", "10.16 fp16"}));

  // Nothing else is lost: audio keeps the server's pins and its result, the engine's analysis stays done.
  json audio = json::parse(
      c.Get("/api/projects/audio/models/detector/versions/1/analysis", bearer(s.token))->body);
  EXPECT_EQ(audio["status"], "done") << audio.dump();
  EXPECT_EQ(runtimes(audio).size(), 3u);
  EXPECT_EQ(json::parse(c.Get(engines.c_str(), bearer(s.token))->body)["engines"][0]["analysis"]["status"], "done");
  // Back to the server's pins: the result at them is still there, read at once (no analysis).
  auto cleared = post_pins(s.token, "pins=");
  ASSERT_EQ(cleared->status, 200);
  EXPECT_EQ(json::parse(cleared->body)["source"], "server");
  json a3 = json::parse(c.Get("/api/projects/vision/models/detector/versions/1/analysis", bearer(s.token))->body);
  EXPECT_EQ(a3["status"], "done") << a3.dump();
  EXPECT_EQ(runtimes(a3), runtimes(a1));

  // The page form: the session's CSRF token, a writer's role; a bad pin is a page that says why.
  const httplib::Headers html = {{"Cookie", session.first}, {"Accept", "text/html"}};
  EXPECT_EQ(c.Post("/projects/vision/pins", html, "csrf=wrong&pins=8.6:fp16", "application/x-www-form-urlencoded")->status,
            403);
  auto bad = c.Post("/projects/vision/pins", html, "csrf=" + session.second + "&pins=99.1:fp16",
                    "application/x-www-form-urlencoded");
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(bad->get_header_value("Content-Type").find("text/html"), std::string::npos);
  EXPECT_NE(bad->body.find("unknown TensorRT release &#39;99.1&#39;"), std::string::npos) << bad->body;
  auto saved = c.Post("/projects/vision/pins", html, "csrf=" + session.second + "&pins=8.6:fp16&back=project",
                      "application/x-www-form-urlencoded");
  ASSERT_EQ(saved->status, 303) << saved->body;
  EXPECT_EQ(saved->get_header_value("Location"), "/projects/vision");
  EXPECT_EQ(pins_of()["pins"], json::array({"8.6:fp16"}));
  const auto bob_session = sign_in(c, reader);
  EXPECT_EQ(c.Post("/projects/vision/pins", {{"Cookie", bob_session.first}}, "csrf=" + bob_session.second + "&pins=",
                   "application/x-www-form-urlencoded")->status,
            403);
  EXPECT_EQ(c.Get("/projects/vision", {{"Cookie", bob_session.first}})->body.find("form class=\"pins\""),
            std::string::npos);  // readers see the pins, not the form

  // Eight pins (their key is hashed, keys stay short): analysed at all of them.
  ASSERT_EQ(post_pins(s.token, "pins=8.6:fp32,8.6:fp16,8.6:int8,8.6:bf16,8.6:fp8,8.6:best,10.16:fp16,9.3:fp16")->status,
            200);
  json eight = s.wait_analysis(1);
  ASSERT_EQ(eight["status"], "done") << eight.dump();
  EXPECT_EQ(runtimes(eight).size(), 8u);
  EXPECT_EQ(runtimes(eight)[7], "9.3 fp16");

  // An administrator with no role on the project may set them too.
  const std::string root = run_trtlens({"admin", "--data", s.data, "user", "root", "--admin"}).out.substr(0, 68);
  ASSERT_EQ(post_pins(root, "pins=10.16:fp16", "audio")->status, 200);
  EXPECT_EQ(pins_of("audio")["pins"], json::array({"10.16:fp16"}));

  // `admin pins`: the same checks, exit 2 and one line.
  RunResult shown = run_trtlens({"admin", "--data", s.data, "pins", "vision"});
  EXPECT_EQ(shown.out, "8.6:fp32 8.6:fp16 8.6:int8 8.6:bf16 8.6:fp8 8.6:best 10.16:fp16 9.3:fp16\n");
  RunResult cli_set = run_trtlens({"admin", "--data", s.data, "pins", "vision", "8.6.1:int8", "9.3:fp16"});
  ASSERT_EQ(cli_set.exit_code, 0) << cli_set.err;
  EXPECT_EQ(cli_set.out, "8.6:int8 9.3:fp16\n");
  EXPECT_EQ(pins_of()["pins"], json::array({"8.6:int8", "9.3:fp16"}));
  RunResult cli_bad = run_trtlens({"admin", "--data", s.data, "pins", "vision", "99.1:fp16"});
  EXPECT_EQ(cli_bad.exit_code, 2);
  EXPECT_EQ(cli_bad.err.rfind("trtlens: pins of vision 99.1:fp16: unknown TensorRT release '99.1'", 0), 0u) << cli_bad.err;
  std::vector<std::string> nine = {"admin", "--data", s.data, "pins", "vision"};
  for (const char* p : {"8.6:fp32", "8.6:fp16", "8.6:int8", "8.6:bf16", "8.6:fp8", "8.6:best", "10.16:fp16", "10.16:int8",
                        "9.3:fp16"})
    nine.push_back(p);
  RunResult cli_many = run_trtlens(nine);
  EXPECT_EQ(cli_many.exit_code, 2);
  EXPECT_EQ(cli_many.err, "trtlens: pins of vision: 9 pins; at most 8 (each is stored with every version)\n");
  RunResult cli_nowhere = run_trtlens({"admin", "--data", s.data, "pins", "nowhere", "8.6:fp16"});
  EXPECT_EQ(cli_nowhere.exit_code, 2);
  EXPECT_EQ(cli_nowhere.err, "trtlens: no project named nowhere\n");
  EXPECT_EQ(pins_of()["pins"], json::array({"8.6:int8", "9.3:fp16"}));  // refusals changed nothing
  EXPECT_NE(run_trtlens({"admin", "--data", s.data, "projects"}).out.find("\tpins 8.6:int8 9.3:fp16\n"),
            std::string::npos);
  RunResult cli_clear = run_trtlens({"admin", "--data", s.data, "pins", "vision", "--clear"});
  EXPECT_EQ(cli_clear.out, "- (the server's --pin)\n");
  EXPECT_EQ(pins_of()["source"], "server");
  // The server's own --pin takes the same limit.
  std::vector<std::string> serve_nine = {"serve", "--data", s.data, "--port", "0"};
  for (size_t i = 5; i < nine.size(); ++i) {
    serve_nine.push_back("--pin");
    serve_nine.push_back(nine[i]);
  }
  RunResult too_many = run_trtlens(serve_nine);
  EXPECT_EQ(too_many.exit_code, 2);
  EXPECT_EQ(too_many.err, "trtlens: --pin: 9 pins; at most 8 (each is stored with every version)\n");
}


// The session cookie's form POST (application/x-www-form-urlencoded) with its CSRF token.
httplib::Result post_form(httplib::Client& c, const std::pair<std::string, std::string>& session,
                          const std::string& path, const std::string& fields = "") {
  return c.Post(path.c_str(), {{"Cookie", session.first}},
                "csrf=" + session.second + (fields.empty() ? "" : "&" + fields), "application/x-www-form-urlencoded");
}

// The message a form's redirect carries (its flash cookie), as the next page shows it.
std::string flash_after(httplib::Client& c, const std::pair<std::string, std::string>& session,
                        const httplib::Result& posted) {
  EXPECT_EQ(posted->status, 303) << posted->body;
  std::string cookie;
  for (const auto& [name, value] : posted->headers)
    if (name == "Set-Cookie" && value.rfind("trtlens_flash=", 0) == 0) cookie = value.substr(0, value.find(';'));
  EXPECT_NE(cookie, "") << "no flash";
  auto page = c.Get(posted->get_header_value("Location").c_str(), {{"Cookie", session.first + "; " + cookie}});
  if (page && page->status == 303)  // the model's address goes on to its newest version
    page = c.Get(page->get_header_value("Location").c_str(), {{"Cookie", session.first + "; " + cookie}});
  EXPECT_TRUE(page && page->status == 200);
  // Shown once: the page clears the cookie.
  EXPECT_NE(page->get_header_value("Set-Cookie").find("trtlens_flash=; "), std::string::npos);
  const size_t at = page->body.find("<p class=\"notice flash\" role=\"status\">");
  if (at == std::string::npos) return "";
  const size_t from = page->body.find('>', at) + 1;
  return page->body.substr(from, page->body.find("</p>", from) - from);
}

// Tags: every tag of a model is listed ("production → v1") and found by the filter, whatever
// version it names; a tag addresses its version wherever a number does (pages, API, report,
// files, diff against=); a tag of digits is refused at tagging (400, exit 2), before any upload.
TEST(ServeCli, TagsAreListedSearchableAndAddressTheirVersion) {
  Served s("serve_tags");
  ASSERT_EQ(s.push(model_bytes(), "detector", "filename=model.onnx&tag=production")->status, 201);
  ASSERT_EQ(s.push(model_bytes(true))->status, 201);
  ASSERT_EQ(s.wait_analysis(1)["status"], "done");
  ASSERT_EQ(s.wait_analysis(2)["status"], "done");

  auto models = s.client().Get("/api/projects/vision/models", bearer(s.token));
  ASSERT_EQ(models->status, 200);
  const json m = json::parse(models->body)["models"][0];
  EXPECT_EQ(m["tags"], json::parse(R"([{"tag": "production", "version": 1}])")) << m.dump();
  EXPECT_EQ(m["latest"]["version"], 2);

  const std::string api = "/api/projects/vision/models/detector/versions/";
  auto tagged = s.client().Get((api + "production").c_str(), bearer(s.token));
  ASSERT_EQ(tagged->status, 200) << tagged->body;
  EXPECT_EQ(json::parse(tagged->body)["version"], 1);
  EXPECT_EQ(s.client().Get((api + "production/analysis").c_str(), bearer(s.token))->status, 200);
  auto diff = s.client().Get((api + "2/diff?against=production").c_str(), bearer(s.token));
  ASSERT_EQ(diff->status, 200) << diff->body;
  EXPECT_EQ(json::parse(diff->body)["before"]["label"], "version 1");
  auto unknown = s.client().Get((api + "staging").c_str(), bearer(s.token));
  EXPECT_EQ(unknown->status, 404);
  EXPECT_NE(unknown->body.find("has no version or tag staging"), std::string::npos) << unknown->body;

  auto c = s.client();
  const auto session = sign_in(c, s.token);
  const httplib::Headers cookie = {{"Cookie", session.first}};
  for (const std::string q : {"production", "PRODUCTION"}) {
    auto list = c.Get(("/projects/vision?q=" + q).c_str(), cookie);
    ASSERT_EQ(list->status, 200);
    EXPECT_NE(list->body.find("production → v1</a>"), std::string::npos) << list->body;
    EXPECT_NE(list->body.find("href=\"/projects/vision/models/detector/versions/production\""), std::string::npos);
  }
  EXPECT_NE(c.Get("/?q=production", cookie)->body.find("production → v1"), std::string::npos);
  EXPECT_NE(c.Get("/?q=staging", cookie)->body.find("No model matches."), std::string::npos);
  const std::string pages = "/projects/vision/models/detector/versions/production";
  auto page = c.Get(pages.c_str(), cookie);
  ASSERT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("version 1</span>"), std::string::npos);
  EXPECT_EQ(c.Get((pages + "/report").c_str(), cookie)->status, 200);
  auto file = c.Get((pages + "/files/model.onnx").c_str(), cookie);
  ASSERT_EQ(file->status, 200);
  EXPECT_EQ(file->body, model_bytes());
  auto diff_page = c.Get("/projects/vision/models/detector/versions/2/diff?against=production", cookie);
  ASSERT_EQ(diff_page->status, 200);
  EXPECT_NE(diff_page->body.find("Compared with v1"), std::string::npos);

  // A tag of digits would read as a version number: refused wherever a tag is set, in one line.
  auto numeric = s.client().Post("/api/projects/vision/models/detector", bearer(s.token), "tag=2&version=1",
                                 "application/x-www-form-urlencoded");
  EXPECT_EQ(numeric->status, 400);
  EXPECT_NE(numeric->body.find("tag '2' is a number"), std::string::npos) << numeric->body;
  auto numeric_push = s.push(model_bytes(false, "custom"), "detector", "filename=model.onnx&tag=007");
  EXPECT_EQ(numeric_push->status, 400) << numeric_push->body;
  EXPECT_EQ(json::parse(s.client().Get((api.substr(0, api.size() - 1)).c_str(), bearer(s.token))->body)["versions"]
                .size(),
            2u);  // no version made
  RunResult admin_tag = run_trtlens({"admin", "--data", s.data, "tag", "vision", "detector", "12", "1"});
  EXPECT_EQ(admin_tag.exit_code, 2);
  EXPECT_EQ(admin_tag.err, "trtlens: tag '12' is a number: it would read as version 12 (use a name, e.g. v12)\n");
  const std::string model_file = temp_dir("serve_tags_model") + "/model.onnx";
  write_text(model_file, model_bytes(false, "custom"));
  RunResult push = run_trtlens({"push", model_file, "--to", s.server->url(), "--project", "vision", "--name",
                                "detector", "--tag", "3"},
                               {"TRTLENS_TOKEN=" + s.token});
  EXPECT_EQ(push.exit_code, 2);
  EXPECT_EQ(push.err, "trtlens: push --tag: tag '3' is a number: it would read as version 3 (use a name, e.g. v3)\n");
  auto tag_form = post_form(c, session, "/projects/vision/models/detector/versions/1/tag", "tag=42");
  EXPECT_EQ(tag_form->status, 400);
  EXPECT_NE(tag_form->body.find("is a number"), std::string::npos);
  EXPECT_TRUE(json::parse(s.client().Get((api + "1").c_str(), bearer(s.token))->body)["tags"] ==
              json::array({"production"}));
}

// A project's diff opens at its first pin (release, precision and target) when none is asked
// for, and the compare form offers the target beside them, prefilled from that pin; the pins of
// a DLA target show the DLA's share of the nodes.
TEST(ServeCli, DiffsOpenAtTheFirstPinAndDlaPinsShowTheirShare) {
  Served s("serve_diff_pin", {"--pin", "8.5:fp16:orin-dla", "--pin", "10.3:fp16"});
  ASSERT_EQ(s.push(model_bytes())->status, 201);
  ASSERT_EQ(s.push(model_bytes(true))->status, 201);
  ASSERT_EQ(s.wait_analysis(1)["status"], "done");
  const json a = s.wait_analysis(2);
  ASSERT_EQ(a["status"], "done");
  const std::string api = "/api/projects/vision/models/detector/versions/2/diff?against=1";
  auto diff = s.client().Get(api.c_str(), bearer(s.token));
  ASSERT_EQ(diff->status, 200) << diff->body;
  EXPECT_EQ(json::parse(diff->body)["runtime"], "8.5 fp16 orin-dla");
  // Given a release or precision alone, the rest is the pin's, without its target.
  EXPECT_EQ(json::parse(s.client().Get((api + "&trt=10.3").c_str(), bearer(s.token))->body)["runtime"], "10.3 fp16");
  EXPECT_EQ(json::parse(s.client().Get((api + "&trt=8.5&precision=fp16&target=").c_str(), bearer(s.token))->body)
                ["runtime"],
            "8.5 fp16");
  auto other_target = s.client().Get((api + "&trt=10.3&precision=fp16&target=h100").c_str(), bearer(s.token));
  ASSERT_EQ(other_target->status, 200) << other_target->body;  // not pinned: judged now
  EXPECT_EQ(json::parse(other_target->body)["runtime"], "10.3 fp16 h100");
  EXPECT_EQ(s.client().Get((api + "&target=nope").c_str(), bearer(s.token))->status, 400);

  // The DLA pin's share, in the API and on the badges.
  const json& dla_pin = a["converts"][0];
  ASSERT_TRUE(dla_pin.contains("dla_nodes")) << a.dump();
  EXPECT_EQ(dla_pin["placed_nodes"], 2);  // Relu and Sigmoid
  EXPECT_FALSE(a["converts"][1].contains("dla_nodes"));
  const std::string share = "DLA " + std::to_string(dla_pin["dla_nodes"].get<int>() * 100 / 2) + "%";
  auto c = s.client();
  const auto session = sign_in(c, s.token);
  const httplib::Headers cookie = {{"Cookie", session.first}};
  for (const std::string path : {"/projects/vision", "/projects/vision/models/detector/versions/2"}) {
    auto page = c.Get(path.c_str(), cookie);
    ASSERT_EQ(page->status, 200);
    EXPECT_NE(page->body.find("<span class=\"dla\">" + share + "</span>"), std::string::npos) << path << page->body;
  }
  auto version = c.Get("/projects/vision/models/detector/versions/2", cookie);
  EXPECT_NE(version->body.find("name=\"trt\" size=\"8\" value=\"8.5\""), std::string::npos);
  EXPECT_NE(version->body.find("<option selected>fp16</option>"), std::string::npos);
  EXPECT_NE(version->body.find("<select name=\"target\"><option value=\"\">none</option><option selected>orin-dla"
                               "</option>"),
            std::string::npos)
      << version->body;  // the pins' targets first, then the catalogue's
  EXPECT_NE(version->body.find("<option>h100</option>"), std::string::npos);
  auto page = c.Get("/projects/vision/models/detector/versions/2/diff?against=1", cookie);
  ASSERT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("8.5 fp16 orin-dla"), std::string::npos);
  EXPECT_NE(page->body.find("<option selected>orin-dla</option>"), std::string::npos);
  auto asked = c.Get("/projects/vision/models/detector/versions/2/diff?against=1&trt=10.3&precision=fp32&target=",
                     cookie);
  ASSERT_EQ(asked->status, 200);
  EXPECT_NE(asked->body.find("value=\"10.3\""), std::string::npos);  // the form says what is shown
  EXPECT_NE(asked->body.find("<option selected>fp32</option>"), std::string::npos);
  EXPECT_EQ(asked->body.find("<option selected>orin-dla"), std::string::npos);
}

// Writers administer from the pages (CSRF-checked forms): untag, rename, relabel and delete an
// engine on its page, delete a model after a confirmation page; every form's redirect says what
// it did, once. Both pages list every stored file with its size and a download link.
TEST(ServeCli, WritersManageFromThePagesAndEachFormSaysWhatItDid) {
  Served s("serve_page_admin");
  const std::string reader = make_user(s.data, "bob", {"vision"}, "read");
  ASSERT_EQ(s.push(model_bytes(), "detector", "filename=model.onnx&tag=production")->status, 201);
  const std::string v1 = "/projects/vision/models/detector/versions/1";
  ASSERT_EQ(s.client().Post(("/api" + v1 + "/engines?filename=engine.zip&label=fp16").c_str(), bearer(s.token),
                            overlay_engine_zip(), "application/zip")->status,
            201);
  auto c = s.client();
  const auto session = sign_in(c, s.token);
  const httplib::Headers cookie = {{"Cookie", session.first}};

  // Files with sizes and links: the version's, and the engine's trtexec files.
  auto version = c.Get(v1.c_str(), cookie);
  ASSERT_EQ(version->status, 200);
  EXPECT_NE(version->body.find("<summary>Files (1)</summary>"), std::string::npos) << version->body;
  EXPECT_NE(version->body.find("href=\"" + v1 + "/files/model.onnx\" download><code>model.onnx</code>"),
            std::string::npos);
  auto engine = c.Get((v1 + "/engines/1").c_str(), cookie);
  ASSERT_EQ(engine->status, 200);
  EXPECT_NE(engine->body.find("<summary>Files (3)</summary>"), std::string::npos) << engine->body;
  for (const char* f : {"overlay.onnx.engine.graph.json", "overlay.onnx.engine.profile.json",
                        "overlay.onnx.engine.build.metadata.json"}) {
    const std::string href = v1 + "/engines/1/files/" + f;
    EXPECT_NE(engine->body.find("href=\"" + href + "\" download"), std::string::npos) << f;
    auto got = c.Get(href.c_str(), cookie);
    ASSERT_EQ(got->status, 200) << f;
    EXPECT_EQ(got->body, read_text(engine_fixture(std::string("overlay/") + f)));
  }
  EXPECT_NE(engine->body.find("action=\"" + v1 + "/engines/1/relabel\""), std::string::npos);

  // A reader sees no administration; the forms refuse a reader and a missing CSRF token.
  auto b = s.client();
  const auto bob = sign_in(b, reader);
  EXPECT_EQ(b.Get((v1 + "/engines/1").c_str(), {{"Cookie", bob.first}})->body.find("/relabel"), std::string::npos);
  EXPECT_EQ(post_form(b, bob, v1 + "/engines/1/relabel", "label=x")->status, 403);
  EXPECT_EQ(b.Get("/projects/vision/models/detector/delete", {{"Cookie", bob.first}})->status, 403);
  EXPECT_EQ(c.Post((v1 + "/engines/1/relabel").c_str(), cookie, "label=x", "application/x-www-form-urlencoded")
                ->status,
            403);

  EXPECT_EQ(flash_after(c, session, post_form(c, session, v1 + "/engines/1/relabel", "label=fp16+A100")),
            "relabelled engine 1: fp16 → fp16 A100");
  EXPECT_EQ(flash_after(c, session, post_form(c, session, v1 + "/tag", "tag=staging")),
            "tagged v1 staging: /projects/vision/models/detector/versions/staging opens it");
  EXPECT_EQ(flash_after(c, session, post_form(c, session, "/projects/vision/models/detector/untag", "tag=staging")),
            "removed tag staging (it named v1)");
  EXPECT_EQ(json::parse(s.client().Get(("/api" + v1).c_str(), bearer(s.token))->body)["tags"],
            json::array({"production"}));
  EXPECT_EQ(flash_after(c, session, post_form(c, session, "/projects/vision/models/detector/describe",
                                              "description=front+camera")),
            "saved the description of detector");
  const std::string engine_gone = flash_after(c, session, post_form(c, session, v1 + "/engines/1/delete"));
  EXPECT_EQ(engine_gone.rfind("deleted engine 1 (fp16 A100) of detector v1; ", 0), 0u) << engine_gone;
  EXPECT_TRUE(json::parse(s.client().Get(("/api" + v1 + "/engines").c_str(), bearer(s.token))->body)["engines"]
                  .empty());

  // Rename: the model's pages move with it.
  auto renamed = post_form(c, session, "/projects/vision/models/detector/rename", "name=front");
  EXPECT_EQ(renamed->get_header_value("Location"), "/projects/vision/models/front");
  EXPECT_EQ(flash_after(c, session, renamed),
            "renamed model detector to front; its versions, engines and tags go with it (old links to detector now "
            "answer 404)");
  EXPECT_EQ(c.Get(v1.c_str(), cookie)->status, 404);
  EXPECT_EQ(post_form(c, session, "/projects/vision/models/front/rename", "name=bad+name")->status, 400);

  // Deleting the model asks first, on a page saying what goes; the form deletes only from there.
  auto ask = c.Get("/projects/vision/models/front/delete", cookie);
  ASSERT_EQ(ask->status, 200);
  EXPECT_NE(ask->body.find("This deletes front with its 1 version(s), 0 engine(s) and its tags."), std::string::npos)
      << ask->body;
  auto unconfirmed = post_form(c, session, "/projects/vision/models/front/delete");
  EXPECT_EQ(unconfirmed->status, 303);
  EXPECT_EQ(unconfirmed->get_header_value("Location"), "/projects/vision/models/front/delete");
  EXPECT_EQ(s.client().Get("/api/projects/vision/models/front/versions", bearer(s.token))->status, 200);
  const std::string deleted =
      flash_after(c, session, post_form(c, session, "/projects/vision/models/front/delete", "confirm=front"));
  EXPECT_EQ(deleted.rfind("deleted model front: 1 version(s), 0 engine(s); ", 0), 0u) << deleted;
  EXPECT_EQ(s.client().Get("/api/projects/vision/models/front/versions", bearer(s.token))->status, 404);
}

}  // namespace
}  // namespace trtlens::test
