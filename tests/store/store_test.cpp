// Store on both databases: one typed suite, run on SQLite and on a real PostgreSQL.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <thread>

#include "backends.h"
#include "store/store.h"

namespace trtlens::store {
namespace {

using namespace trtlens::store::test;
namespace fs = std::filesystem;
using Kind = StoreError::Kind;


NewVersion tree(char fill) { return NewVersion{std::string(64, fill), "model.onnx", "ai.onnx:17", 1234}; }

enum class Backend { Sqlite, Postgres };

// Every test of this suite runs on both databases.
class StoreTest : public ::testing::TestWithParam<Backend> {
 protected:
  static void TearDownTestSuite() { PostgresBackend::stop(); }

  void SetUp() override {
    if (GetParam() == Backend::Postgres) {
      PostgresBackend::start();  // once per process: later calls return at once
      if (!PostgresBackend::skip_reason().empty()) GTEST_SKIP() << PostgresBackend::skip_reason();
      url_ = PostgresBackend::new_database();
    }
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = info->name();
    std::replace(name.begin(), name.end(), '/', '-');
    dir_ = fresh_dir("store-" + name);
    store_ = Store::open(dir_, url_);
  }

  std::unique_ptr<Store> open_again() { return Store::open(dir_, url_); }
  // Folders holding everything the database wrote.
  std::vector<fs::path> storage() const {
    return GetParam() == Backend::Postgres ? PostgresBackend::storage(dir_) : SqliteBackend::storage(dir_);
  }

  fs::path dir_;
  std::string url_;  // empty: SQLite in dir_
  std::unique_ptr<Store> store_;
};

INSTANTIATE_TEST_SUITE_P(, StoreTest, ::testing::Values(Backend::Sqlite, Backend::Postgres),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return info.param == Backend::Sqlite ? "sqlite" : "postgres";
                         });

TEST_P(StoreTest, TokensFindTheirUserAndWrongOnesFindNone) {
  Store& s = *this->store_;
  User alice = s.create_user("alice");
  EXPECT_GT(alice.id, 0);
  EXPECT_EQ(error_kind([&] { s.create_user("alice"); }), Kind::Conflict);

  std::string token = s.issue_token("alice");
  ASSERT_EQ(token.size(), 68u);
  EXPECT_EQ(token.substr(0, 4), "trt_");
  EXPECT_EQ(token.find_first_not_of("0123456789abcdef", 4), std::string::npos);
  std::string second = s.issue_token("alice");
  EXPECT_NE(token, second);

  for (const auto& t : {token, second}) {
    auto u = s.user_for_token(t);
    ASSERT_TRUE(u) << t;
    EXPECT_EQ(u->id, alice.id);
    EXPECT_EQ(u->name, "alice");
  }
  std::string wrong = token;
  wrong.back() = wrong.back() == '0' ? '1' : '0';
  EXPECT_FALSE(s.user_for_token(wrong));
  EXPECT_FALSE(s.user_for_token(token.substr(4)));  // the hex without its prefix
  EXPECT_FALSE(s.user_for_token(""));
  EXPECT_FALSE(s.user_for_token("trt_' OR '1'='1"));
  EXPECT_EQ(error_kind([&] { s.issue_token("nobody"); }), Kind::NotFound);
}

TEST_P(StoreTest, TokensAreStoredOnlyAsHashes) {
  std::string token;
  {
    auto& s = *this->store_;
    s.create_user("marker-user-5d1e");
    token = s.issue_token("marker-user-5d1e");
    ASSERT_TRUE(s.user_for_token(token));
    this->store_.reset();  // SQLite folds its WAL into the file on close
  }
  std::string bytes = all_bytes_under(this->storage());
  // The user row reached the disk (so the search below sees what was written) ...
  ASSERT_NE(bytes.find("marker-user-5d1e"), std::string::npos);
  // ... and the token did not, in any form.
  EXPECT_EQ(bytes.find(token.substr(4)), std::string::npos);
  EXPECT_EQ(bytes.find(token.substr(4, 32)), std::string::npos);
  EXPECT_EQ(bytes.find(token.substr(36)), std::string::npos);
}

TEST_P(StoreTest, RolesAreGrantedPerProject) {
  Store& s = *this->store_;
  User u = s.create_user("u"), v = s.create_user("v");
  for (const char* p : {"c", "a", "b"}) s.create_project(p);
  EXPECT_EQ(error_kind([&] { s.create_project("a"); }), Kind::Conflict);

  s.grant("u", "a", Role::Read);
  s.grant("u", "b", Role::Write);
  EXPECT_EQ(s.role(u.id, "a"), Role::Read);
  EXPECT_EQ(s.role(u.id, "b"), Role::Write);
  EXPECT_EQ(s.role(u.id, "c"), Role::None);
  EXPECT_EQ(s.role(v.id, "a"), Role::None);
  EXPECT_EQ(s.role(u.id, "no-such-project"), Role::None);
  EXPECT_EQ(s.projects_for(u.id), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(s.projects_for(v.id).empty());

  s.grant("u", "a", Role::Write);  // changes the existing grant
  EXPECT_EQ(s.role(u.id, "a"), Role::Write);
  s.grant("u", "a", Role::None);  // removes it
  EXPECT_EQ(s.role(u.id, "a"), Role::None);
  EXPECT_EQ(s.projects_for(u.id), (std::vector<std::string>{"b"}));

  EXPECT_EQ(error_kind([&] { s.grant("nobody", "a", Role::Read); }), Kind::NotFound);
  EXPECT_EQ(error_kind([&] { s.grant("u", "nowhere", Role::Read); }), Kind::NotFound);
}

TEST_P(StoreTest, ATokenOfProjectAHasNoRoleOnProjectB) {
  Store& s = *this->store_;
  s.create_user("ci");
  s.create_project("A");
  s.create_project("B");
  s.grant("ci", "A", Role::Write);
  auto user = s.user_for_token(s.issue_token("ci"));
  ASSERT_TRUE(user);
  EXPECT_EQ(s.role(user->id, "A"), Role::Write);
  EXPECT_EQ(s.role(user->id, "B"), Role::None);
}

TEST_P(StoreTest, SessionsCarryACsrfTokenAndEnd) {
  Store& s = *this->store_;
  User u = s.create_user("browser");
  std::string c1 = s.create_session(u.id, 3600), c2 = s.create_session(u.id, 3600);
  EXPECT_NE(c1, c2);
  auto s1 = s.session(c1), s2 = s.session(c2);
  ASSERT_TRUE(s1);
  ASSERT_TRUE(s2);
  EXPECT_EQ(s1->user_id, u.id);
  EXPECT_EQ(s1->user_name, "browser");
  EXPECT_EQ(s1->csrf.size(), 64u);
  EXPECT_NE(s1->csrf, s2->csrf);
  EXPECT_NE(s1->csrf, c1);

  s.end_session(c1);
  EXPECT_FALSE(s.session(c1));
  EXPECT_TRUE(s.session(c2));  // only that one ended
  s.end_session("not-a-session");  // harmless

  EXPECT_FALSE(s.session(s.create_session(u.id, 0)));  // expired at once
  EXPECT_FALSE(s.session(std::string(64, 'a')));
  EXPECT_FALSE(s.session(""));
  EXPECT_EQ(error_kind([&] { s.create_session(u.id + 100, 60); }), Kind::NotFound);
}

// The sessions table holds a hash of each cookie and no CSRF token: the token
// is derived from the cookie, the same in every process that opens the store.
TEST_P(StoreTest, SessionsKeepNeitherCookieNorCsrfTokenInClear) {
  std::string cookie, csrf;
  {
    auto& s = *this->store_;
    User u = s.create_user("marker-user-7c3a");
    cookie = s.create_session(u.id, 3600);
    auto session = s.session(cookie);
    ASSERT_TRUE(session);
    csrf = session->csrf;
    ASSERT_EQ(csrf.size(), 64u);
    auto other = open_again();  // another server on the same database
    ASSERT_TRUE(other->session(cookie));
    EXPECT_EQ(other->session(cookie)->csrf, csrf);
    other.reset();
    this->store_.reset();  // SQLite folds its WAL into the file on close
  }
  std::string bytes = all_bytes_under(this->storage());
  ASSERT_NE(bytes.find("marker-user-7c3a"), std::string::npos);
  for (const std::string& secret : {cookie, csrf}) {
    EXPECT_EQ(bytes.find(secret), std::string::npos) << secret;
    EXPECT_EQ(bytes.find(secret.substr(0, 32)), std::string::npos) << secret;
    EXPECT_EQ(bytes.find(secret.substr(32)), std::string::npos) << secret;
  }
}

TEST_P(StoreTest, VersionsAreNumberedPerModel) {
  Store& s = *this->store_;
  User u = s.create_user("pusher");
  s.create_project("p");
  Version v1 = s.add_version("p", "resnet", tree('a'), u.id);
  Version v2 = s.add_version("p", "resnet", tree('b'), u.id);
  Version w1 = s.add_version("p", "bert", tree('c'), u.id);
  Version v3 = s.add_version("p", "resnet", tree('d'), u.id);
  EXPECT_EQ(v1.number, 1);
  EXPECT_EQ(v2.number, 2);
  EXPECT_EQ(v3.number, 3);
  EXPECT_EQ(w1.number, 1);
  EXPECT_EQ(v2.created_by, "pusher");
  EXPECT_EQ(v2.project, "p");
  EXPECT_EQ(v2.size_bytes, 1234u);

  auto all = s.versions("p", "resnet");
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].number, 3);  // newest first
  EXPECT_EQ(all[2].tree_hash, std::string(64, 'a'));
  auto got = s.version("p", "resnet", 2);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->id, v2.id);
  EXPECT_EQ(got->tree_hash, std::string(64, 'b'));
  EXPECT_EQ(got->main_file, "model.onnx");
  EXPECT_EQ(got->opsets, "ai.onnx:17");
  EXPECT_FALSE(s.version("p", "resnet", 4));
  EXPECT_FALSE(s.version("p", "nothing", 1));

  auto models = s.models("p");
  ASSERT_EQ(models.size(), 2u);
  EXPECT_EQ(models[0].name, "bert");
  EXPECT_EQ(models[0].versions, 1);
  EXPECT_EQ(models[1].name, "resnet");
  EXPECT_EQ(models[1].versions, 3);
  EXPECT_EQ(models[1].latest.number, 3);
  EXPECT_EQ(models[1].latest.tree_hash, std::string(64, 'd'));

  EXPECT_EQ(error_kind([&] { s.add_version("nope", "resnet", tree('a'), u.id); }), Kind::NotFound);
  EXPECT_EQ(error_kind([&] { s.add_version("p", "../etc", tree('a'), u.id); }), Kind::Invalid);
  EXPECT_EQ(error_kind([&] { s.add_version("p", "m", NewVersion{"xyz", "m.onnx", "", 1}, u.id); }), Kind::Invalid);
  EXPECT_EQ(error_kind([&] { s.add_version("p", "m", tree('a'), u.id + 100); }), Kind::NotFound);
  EXPECT_EQ(error_kind([&] { s.models("nope"); }), Kind::NotFound);
  EXPECT_EQ(error_kind([&] { s.versions("p", "nothing"); }), Kind::NotFound);
  EXPECT_EQ(s.versions("p", "resnet").size(), 3u);  // the refused pushes left nothing behind
}

// Checks that `versions` holds numbers 1..n once each, with distinct ids.
void expect_one_to_n(const std::vector<Version>& versions, int n) {
  std::vector<int> numbers;
  std::set<int64_t> ids;
  for (const auto& v : versions) numbers.push_back(v.number), ids.insert(v.id);
  std::sort(numbers.begin(), numbers.end());
  std::vector<int> expected(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) expected[static_cast<size_t>(i)] = i + 1;
  EXPECT_EQ(numbers, expected);
  EXPECT_EQ(ids.size(), static_cast<size_t>(n));
}

// Eight threads push ten versions each through the stores given (round robin).
std::vector<Version> push_concurrently(const std::vector<Store*>& stores, int64_t user) {
  std::vector<std::vector<Version>> made(8);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < made.size(); ++t)
    threads.emplace_back([&, t] {
      Store& s = *stores[t % stores.size()];
      for (int i = 0; i < 10; ++i) made[t].push_back(s.add_version("p", "m", tree('e'), user));
    });
  for (auto& th : threads) th.join();
  std::vector<Version> all;
  for (auto& m : made) all.insert(all.end(), m.begin(), m.end());
  return all;
}

TEST_P(StoreTest, ConcurrentPushesGetDistinctNumbers) {
  Store& s = *this->store_;
  User u = s.create_user("u");
  s.create_project("p");
  auto made = push_concurrently({&s}, u.id);
  expect_one_to_n(made, 80);
  expect_one_to_n(s.versions("p", "m"), 80);
}

TEST_P(StoreTest, TwoStoresOnOneDatabaseNumberTogether) {
  // Two Store objects are two connections, as two `serve` processes would have.
  Store& s = *this->store_;
  User u = s.create_user("u");
  s.create_project("p");
  auto other = this->open_again();
  auto made = push_concurrently({&s, other.get()}, u.id);
  expect_one_to_n(made, 80);
  expect_one_to_n(other->versions("p", "m"), 80);
  EXPECT_EQ(s.models("p").at(0).latest.number, 80);
}

TEST_P(StoreTest, EnginesAreNumberedPerVersion) {
  Store& s = *this->store_;
  User u = s.create_user("u");
  s.create_project("p");
  Version v = s.add_version("p", "m", tree('a'), u.id);
  Version w = s.add_version("p", "m", tree('b'), u.id);
  Engine e1 = s.add_engine(v.id, "fp16 A100", std::string(64, '1'), "m.onnx.engine", u.id);
  Engine e2 = s.add_engine(v.id, "int8 T4", std::string(64, '2'), "m.onnx.engine", u.id);
  Engine f1 = s.add_engine(w.id, "fp32", std::string(64, '3'), "x", u.id);
  EXPECT_EQ(e1.number, 1);
  EXPECT_EQ(e2.number, 2);
  EXPECT_EQ(f1.number, 1);
  auto list = s.engines(v.id);
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].id, e1.id);
  EXPECT_EQ(list[0].label, "fp16 A100");
  EXPECT_EQ(list[1].tree_hash, std::string(64, '2'));
  EXPECT_EQ(list[1].prefix, "m.onnx.engine");
  EXPECT_EQ(list[1].created_by, "u");
  EXPECT_TRUE(s.engines(w.id + 100).empty());
  EXPECT_EQ(error_kind([&] { s.add_engine(w.id + 100, "x", std::string(64, '1'), "x", u.id); }), Kind::NotFound);
  EXPECT_EQ(error_kind([&] { s.add_engine(v.id, "x", "../../x", "x", u.id); }), Kind::Invalid);
}

TEST_P(StoreTest, OneWorkerClaimsEachAnalysis) {
  Store& s = *this->store_;
  const std::string key(64, 'f'), kb = "kb-2024-01";
  EXPECT_FALSE(s.analysis(key, kb));
  EXPECT_TRUE(s.claim_analysis(key, kb));
  EXPECT_FALSE(s.claim_analysis(key, kb));  // queued, and fresh
  ASSERT_TRUE(s.analysis(key, kb));
  EXPECT_EQ(s.analysis(key, kb)->status, Analysis::Status::Queued);
  EXPECT_TRUE(s.claim_analysis(key, "kb-other"));  // another knowledge base is another entry

  s.update_analysis(key, kb, Analysis{Analysis::Status::Running, 40, "annotating", ""});
  auto a = s.analysis(key, kb);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->status, Analysis::Status::Running);
  EXPECT_EQ(a->progress_percent, 40);
  EXPECT_EQ(a->message, "annotating");
  EXPECT_FALSE(s.claim_analysis(key, kb, 600));
  // Not updated for 0 seconds counts as stale: its worker is taken for dead.
  EXPECT_TRUE(s.claim_analysis(key, kb, 0));
  EXPECT_EQ(s.analysis(key, kb)->status, Analysis::Status::Queued);
  EXPECT_EQ(s.analysis(key, kb)->progress_percent, 0);

  s.update_analysis(key, kb, Analysis{Analysis::Status::Failed, 10, "model.onnx: bad graph", ""});
  EXPECT_EQ(s.analysis(key, kb)->message, "model.onnx: bad graph");
  EXPECT_TRUE(s.claim_analysis(key, kb));  // a failure is retried
  s.update_analysis(key, kb, Analysis{Analysis::Status::Done, 100, "", std::string(64, '9')});
  EXPECT_FALSE(s.claim_analysis(key, kb, 0));  // done is done
  EXPECT_EQ(s.analysis(key, kb)->result_hash, std::string(64, '9'));

  EXPECT_EQ(error_kind([&] { s.analysis("", kb); }), Kind::Invalid);
  EXPECT_EQ(error_kind([&] { s.analysis(key, std::string(257, 'k')); }), Kind::Invalid);
  EXPECT_TRUE(s.claim_analysis(std::string(256, 'k'), kb));
}

// Keys are built from paths in uploads: a long one works like any other and
// stays distinct from its neighbours (it is stored by its hash).
TEST_P(StoreTest, LongAnalysisKeysWork) {
  Store& s = *this->store_;
  const std::string kb = "kb-2024-01";
  const std::string base = std::string(64, 'a') + "/" + std::string(220, 'm');
  const std::string one = base + "/model.onnx", two = base + "/other.onnx";
  EXPECT_TRUE(s.claim_analysis(one, kb));
  EXPECT_FALSE(s.claim_analysis(one, kb));
  EXPECT_TRUE(s.claim_analysis(two, kb));
  s.update_analysis(one, kb, Analysis{Analysis::Status::Done, 100, "done", std::string(64, '1')});
  s.update_analysis(two, kb, Analysis{Analysis::Status::Failed, 5, "broken", ""});
  ASSERT_TRUE(s.analysis(one, kb));
  EXPECT_EQ(s.analysis(one, kb)->result_hash, std::string(64, '1'));
  EXPECT_EQ(s.analysis(two, kb)->status, Analysis::Status::Failed);
  EXPECT_EQ(s.analysis(two, kb)->message, "broken");
  EXPECT_FALSE(s.analysis(std::string(100000, 'k'), kb));
  EXPECT_TRUE(s.claim_analysis(std::string(100000, 'k'), kb));
  EXPECT_EQ(error_kind([&] { s.analysis(std::string(300, '\xff'), kb); }), Kind::Invalid);  // not UTF-8
}

TEST_P(StoreTest, InvalidNamesAreRefused) {
  Store& s = *this->store_;
  for (const std::string& bad : {std::string(), std::string(".hidden"), std::string("a/b"), std::string("a b"),
                                 std::string(65, 'x'), std::string("caf\xc3\xa9"), std::string("x\n")}) {
    EXPECT_EQ(error_kind([&] { s.create_user(bad); }), Kind::Invalid) << bad;
    EXPECT_EQ(error_kind([&] { s.create_project(bad); }), Kind::Invalid) << bad;
  }
  s.create_user(std::string(64, 'x'));
  s.create_project("Proj_1.v-2");
}

TEST_P(StoreTest, TextIsStoredTheSameOnBothDatabases) {
  Store& s = *this->store_;
  User u = s.create_user("u");
  s.create_project("p");
  NewVersion nv = tree('a');
  nv.opsets = std::string("ai.onnx:17\xff, x\0y", 16);
  Version v = s.add_version("p", "m", nv, u.id);
  EXPECT_EQ(v.opsets, "ai.onnx:17\xEF\xBF\xBD, x\xEF\xBF\xBDy");
  EXPECT_EQ(s.version("p", "m", 1)->opsets, v.opsets);
  nv.main_file = "caf\xc3\xa9/mod\xe9l.onnx";  // a path must match the file: refused, not repaired
  EXPECT_EQ(error_kind([&] { s.add_version("p", "m", nv, u.id); }), Kind::Invalid);
  nv.main_file = "caf\xc3\xa9/model.onnx";
  EXPECT_EQ(s.add_version("p", "m", nv, u.id).main_file, nv.main_file);
  EXPECT_EQ(s.version("p", "m", 2)->main_file, nv.main_file);

  Engine e = s.add_engine(v.id, "bad \xc0 label", std::string(64, '1'), "m.onnx.engine", u.id);
  EXPECT_EQ(s.engines(v.id).at(0).label, e.label);
  EXPECT_EQ(e.label, "bad \xEF\xBF\xBD label");
  EXPECT_EQ(error_kind([&] { s.add_engine(v.id, "x", std::string(64, '1'), std::string("a\0b", 3), u.id); }),
            Kind::Invalid);

  EXPECT_EQ(error_kind([&] { s.claim_analysis("key\xff", "kb"); }), Kind::Invalid);
  ASSERT_TRUE(s.claim_analysis("key", "kb"));
  s.update_analysis("key", "kb", Analysis{Analysis::Status::Failed, 0, "node \xfe: bad", ""});
  EXPECT_EQ(s.analysis("key", "kb")->message, "node \xEF\xBF\xBD: bad");
  EXPECT_EQ(error_kind([&] { s.update_analysis("key", "kb", Analysis{Analysis::Status::Done, 100, "", "zz"}); }),
            Kind::Invalid);
}

TEST_P(StoreTest, ReopeningKeepsEverything) {
  std::string token;
  {
    Store& s = *this->store_;
    s.create_user("u");
    s.create_project("p");
    s.grant("u", "p", Role::Read);
    token = s.issue_token("u");
    this->store_.reset();
  }
  auto s = this->open_again();  // the schema is there: migration does nothing
  auto u = s->user_for_token(token);
  ASSERT_TRUE(u);
  EXPECT_EQ(s->role(u->id, "p"), Role::Read);
}

TEST(Store, RoleNamesRoundTrip) {
  for (Role r : {Role::None, Role::Read, Role::Write}) EXPECT_EQ(parse_role(role_name(r)), r);
  EXPECT_EQ(error_kind([] { parse_role("admin"); }), Kind::Invalid);
}

TEST(Store, ValidNames) {
  EXPECT_TRUE(valid_name("resnet50"));
  EXPECT_TRUE(valid_name("a.b_c-D"));
  EXPECT_TRUE(valid_name(std::string(64, 'a')));
  EXPECT_FALSE(valid_name(std::string(65, 'a')));
  EXPECT_FALSE(valid_name(""));
  EXPECT_FALSE(valid_name("."));
  EXPECT_FALSE(valid_name(".."));
  EXPECT_FALSE(valid_name("a/b"));
  EXPECT_FALSE(valid_name(std::string("a\0b", 3)));
}

TEST(Store, BadPostgresUrlIsOneLineWithoutThePassword) {
  fs::path dir = fresh_dir("store-bad-url");
  const std::string url = "postgresql://bob:s3cret@/nodb?host=/nonexistent-trtlens-socket-dir&port=1";
  try {
    Store::open(dir, url);
    FAIL() << "opened " << url;
  } catch (const StoreError& e) {
    std::string msg = e.what();
    EXPECT_EQ(e.kind, Kind::Backend);
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_EQ(msg.find("s3cret"), std::string::npos) << msg;
    EXPECT_EQ(msg.rfind("postgresql://bob:***@/nodb?host=/nonexistent-trtlens-socket-dir&port=1: ", 0), 0u) << msg;
  }
  try {
    Store::open(dir, "mysql://root:pw@db/x?password=pw2");
    FAIL() << "opened a mysql URL";
  } catch (const StoreError& e) {
    EXPECT_EQ(e.kind, Kind::Backend);
    EXPECT_EQ(std::string(e.what()).find("pw"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("mysql://root:***@db/x"), std::string::npos) << e.what();
  }
}

TEST(Store, DataFolderThatIsAFileIsRefused) {
  fs::path dir = fresh_dir("store-file-as-folder");
  std::ofstream(dir / "plain") << "x";
  try {
    Store::open(dir / "plain");
    FAIL();
  } catch (const StoreError& e) {
    EXPECT_EQ(e.kind, Kind::Backend);
    EXPECT_NE(std::string(e.what()).find((dir / "plain").string()), std::string::npos) << e.what();
  }
}

TEST(Store, ADatabaseFileThatIsNotSqliteIsRefused) {
  fs::path dir = fresh_dir("store-not-sqlite");
  std::ofstream(dir / "trtlens.db") << std::string(4096, 'x');
  try {
    Store::open(dir);
    FAIL();
  } catch (const StoreError& e) {
    std::string msg = e.what();
    EXPECT_EQ(e.kind, Kind::Backend);
    EXPECT_EQ(msg.rfind((dir / "trtlens.db").string() + ": ", 0), 0u) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace trtlens::store
