// Store on both databases: one typed suite, run on SQLite and on a real PostgreSQL.
#include <gtest/gtest.h>
#include <sqlite3.h>

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


NewVersion tree(char fill) { return NewVersion{std::string(64, fill), "model.onnx", "ai.onnx:17", 1234, "", "", ""}; }

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
  EXPECT_EQ(error_kind([&] { s.add_version("p", "m", NewVersion{"xyz", "m.onnx", "", 1, "", "", ""}, u.id); }), Kind::Invalid);
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

TEST(Store, TagsAreNamesThatAreNotNumbers) {
  EXPECT_TRUE(valid_tag("production"));
  EXPECT_TRUE(valid_tag("v2"));
  EXPECT_TRUE(valid_tag("1.0"));  // a version is addressed by digits only
  EXPECT_FALSE(valid_tag("2"));
  EXPECT_FALSE(valid_tag("0042"));
  EXPECT_FALSE(valid_tag("bad tag"));
  EXPECT_EQ(tag_problem("12"), "tag '12' is a number: it would read as version 12 (use a name, e.g. v12)");
  EXPECT_EQ(tag_problem("production"), "");
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

namespace trtlens::store {
namespace {

using namespace trtlens::store::test;

// A tree stored in `s` holding one file with `content`; its hash.
std::string stored_tree(Store& s, const std::string& content) {
  fs::path dir = s.objects().make_temp_dir();
  std::ofstream(dir / "model.onnx") << content;
  return s.objects().adopt_tree(dir);
}

bool tree_exists(Store& s, const std::string& hash) {
  try {
    s.objects().tree_path(hash);
    return true;
  } catch (const StoreError&) {
    return false;
  }
}

bool blob_exists(Store& s, const std::string& hash) {
  try {
    s.objects().get_blob(hash);
    return true;
  } catch (const StoreError&) {
    return false;
  }
}

TEST_P(StoreTest, AdminListsUsersProjectsAndTokensAndARevokedTokenFindsNoUser) {
  Store& s = *this->store_;
  s.create_user("alice");
  s.create_user("bob");
  s.create_project("vision");
  s.create_project("audio");
  s.grant("alice", "vision", Role::Write);
  s.grant("bob", "vision", Role::Read);
  std::string t1 = s.issue_token("alice"), t2 = s.issue_token("alice"), t3 = s.issue_token("bob");
  s.add_version("vision", "detector", tree('a'), s.user_for_token(t1)->id);

  auto users = s.users();
  ASSERT_EQ(users.size(), 2u);
  EXPECT_EQ(users[0].name, "alice");
  EXPECT_EQ(users[0].tokens, 2);
  ASSERT_EQ(users[0].grants.size(), 1u);
  EXPECT_EQ(users[0].grants[0], std::make_pair(std::string("vision"), Role::Write));
  EXPECT_EQ(users[1].grants[0].second, Role::Read);
  auto projects = s.projects();
  ASSERT_EQ(projects.size(), 2u);
  EXPECT_EQ(projects[0].name, "audio");
  EXPECT_EQ(projects[0].models, 0);
  EXPECT_EQ(projects[1].models, 1);

  auto tokens = s.tokens();
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_EQ(tokens[0].user, "alice");
  EXPECT_EQ(tokens[0].hint, "…" + t1.substr(t1.size() - 4));  // the last characters, never the token
  EXPECT_EQ(tokens[2].user, "bob");
  EXPECT_EQ(s.tokens("bob").size(), 1u);
  EXPECT_EQ(error_kind([&] { s.tokens("nobody"); }), Kind::NotFound);

  // Last use: t1 signed in above (add_version's user), t3 never.
  EXPECT_GT(tokens[0].last_used_at, 0);
  EXPECT_EQ(tokens[2].last_used_at, 0);
  EXPECT_EQ(tokens[0].revoked_at, 0);

  // Sessions signed in with t2 end when it is revoked; one signed in with t1 stays.
  auto by_t2 = s.user_for_token(t2);
  ASSERT_TRUE(by_t2);
  EXPECT_EQ(by_t2->token_id, tokens[1].id);
  const std::string session_t2 = s.create_session(by_t2->id, 3600, by_t2->token_id);
  const std::string session_t1 = s.create_session(by_t2->id, 3600, s.user_for_token(t1)->token_id);
  s.revoke_token(tokens[1].id);
  EXPECT_TRUE(s.user_for_token(t1));
  EXPECT_FALSE(s.user_for_token(t2));  // revoked
  EXPECT_TRUE(s.token_revoked(t2));     // and known to be (the server's 401 says so)
  EXPECT_FALSE(s.token_revoked(t1));
  EXPECT_FALSE(s.token_revoked("trt_" + std::string(64, '0')));  // never issued
  EXPECT_FALSE(s.token_revoked("junk"));
  EXPECT_TRUE(s.user_for_token(t3));
  EXPECT_FALSE(s.session(session_t2));
  EXPECT_TRUE(s.session(session_t1));
  // Listed as revoked, not counted among the user's tokens.
  tokens = s.tokens();
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_GT(tokens[1].revoked_at, 0);
  EXPECT_EQ(tokens[0].revoked_at, 0);
  EXPECT_EQ(s.users()[0].tokens, 1);
  EXPECT_EQ(error_kind([&] { s.revoke_token(tokens[1].id); }), Kind::Conflict);  // revoked already
  EXPECT_EQ(error_kind([&] { s.revoke_token(999); }), Kind::NotFound);
}

TEST_P(StoreTest, AdministratorsAreMarkedOnTokensSessionsAndListings) {
  Store& s = *this->store_;
  s.create_user("root");
  s.create_user("dev");
  const std::string root = s.issue_token("root"), dev = s.issue_token("dev");
  EXPECT_FALSE(s.user_for_token(root)->admin);  // nobody is one until promoted
  s.set_admin("root", true);
  EXPECT_TRUE(s.user_for_token(root)->admin);
  EXPECT_FALSE(s.user_for_token(dev)->admin);
  auto user = s.user_for_token(root);
  auto session = s.session(s.create_session(user->id, 3600, user->token_id));
  ASSERT_TRUE(session);
  EXPECT_TRUE(session->admin);
  auto users = s.users();
  EXPECT_FALSE(users[0].admin);  // dev
  EXPECT_TRUE(users[1].admin);   // root
  s.set_admin("root", false);
  EXPECT_FALSE(s.user_for_token(root)->admin);
  EXPECT_EQ(error_kind([&] { s.set_admin("nobody", true); }), Kind::NotFound);
}

TEST_P(StoreTest, ProjectsKeepTheirPins) {
  Store& s = *this->store_;
  s.create_project("vision");
  s.create_project("audio");
  EXPECT_TRUE(s.project_pins("vision").empty());  // the server's
  s.set_project_pins("vision", {"8.6:fp16", "10.16:int8", "8.5:fp16:orin-dla"});
  EXPECT_EQ(s.project_pins("vision"), (std::vector<std::string>{"8.6:fp16", "10.16:int8", "8.5:fp16:orin-dla"}));
  EXPECT_TRUE(s.project_pins("audio").empty());
  auto projects = s.projects();
  EXPECT_TRUE(projects[0].pins.empty());
  EXPECT_EQ(projects[1].pins.size(), 3u);
  EXPECT_EQ(this->open_again()->project_pins("vision").size(), 3u);
  // The store checks shapes (the server checks releases and targets): nothing is half-set.
  EXPECT_EQ(error_kind([&] { s.set_project_pins("vision", std::vector<std::string>(kMaxPins + 1, "8.6:fp16")); }),
            Kind::Invalid);
  EXPECT_EQ(error_kind([&] { s.set_project_pins("vision", {"8.6:fp16", "8.6 fp16"}); }), Kind::Invalid);
  EXPECT_EQ(error_kind([&] { s.set_project_pins("vision", {""}); }), Kind::Invalid);
  EXPECT_EQ(error_kind([&] { s.set_project_pins("vision", {std::string(65, '8')}); }), Kind::Invalid);
  EXPECT_EQ(s.project_pins("vision").size(), 3u);
  EXPECT_EQ(error_kind([&] { s.set_project_pins("nowhere", {"8.6:fp16"}); }), Kind::NotFound);
  EXPECT_EQ(error_kind([&] { s.project_pins("nowhere"); }), Kind::NotFound);
  s.set_project_pins("vision", {});
  EXPECT_TRUE(s.project_pins("vision").empty());
}

TEST_P(StoreTest, DeletingAVersionKeepsObjectsAnotherVersionShares) {
  Store& s = *this->store_;
  User u = s.create_user("u");
  s.create_project("p");
  const std::string shared = stored_tree(s, "shared bytes"), own = stored_tree(s, "v3 bytes"),
                    engine = stored_tree(s, "engine bytes");
  auto version = [&](const std::string& hash) { return NewVersion{hash, "model.onnx", "ai.onnx:17", 12, "", "", ""}; };
  Version v1 = s.add_version("p", "m", version(shared), u.id);
  Version v2 = s.add_version("p", "m", version(shared), u.id);
  Version v3 = s.add_version("p", "m", version(own), u.id);
  s.add_engine(v2.id, "fp16", engine, "", u.id, "8.6", "given");
  // Cached analyses: v3's result names a page; an orphan blob names nothing.
  const std::string page = s.objects().put_blob("<html>v3</html>");
  const std::string result = s.objects().put_blob("{\"page\": \"" + page + "\"}");
  const std::string orphan = s.objects().put_blob("left behind");
  ASSERT_TRUE(s.claim_analysis(own + "/model.onnx", "kb"));
  s.update_analysis(own + "/model.onnx", "kb", Analysis{Analysis::Status::Done, 100, "done", result});

  s.delete_version("p", "m", v1.number);
  auto removed = s.collect_garbage(std::chrono::seconds(0), std::chrono::seconds(0));
  EXPECT_EQ(removed.first, 0);   // v2 still names the shared tree
  EXPECT_EQ(removed.second, 1);  // the orphan blob
  EXPECT_TRUE(tree_exists(s, shared));
  EXPECT_TRUE(blob_exists(s, page));
  EXPECT_TRUE(blob_exists(s, result));
  EXPECT_FALSE(blob_exists(s, orphan));
  EXPECT_FALSE(s.version("p", "m", v1.number));
  EXPECT_EQ(s.versions("p", "m").size(), 2u);

  // The newest version deleted: the list shows the one left as the latest, its engine with it.
  s.delete_version("p", "m", v3.number);
  s.collect_garbage(std::chrono::seconds(0), std::chrono::seconds(0));
  EXPECT_FALSE(tree_exists(s, own));
  EXPECT_FALSE(s.analysis(own + "/model.onnx", "kb"));  // the cached analysis of a tree gone
  EXPECT_FALSE(blob_exists(s, page));
  auto models = s.models("p");
  ASSERT_EQ(models.size(), 1u);
  EXPECT_EQ(models[0].latest.number, v2.number);
  EXPECT_EQ(models[0].versions, 1);

  // The engine's cached analysis (the server's key: engine tree, release, model key) goes with it.
  const std::string engine_key = "engine:" + engine + "@8.6+" + shared + "/model.onnx";
  ASSERT_TRUE(s.claim_analysis(engine_key, "kb"));
  ASSERT_TRUE(s.claim_analysis(shared + "/model.onnx", "kb"));
  s.delete_engine(v2.id, 1);
  EXPECT_TRUE(s.engines(v2.id).empty());
  s.collect_garbage(std::chrono::seconds(0), std::chrono::seconds(0));
  EXPECT_FALSE(tree_exists(s, engine));
  EXPECT_TRUE(tree_exists(s, shared));
  EXPECT_FALSE(s.analysis(engine_key, "kb"));
  EXPECT_TRUE(s.analysis(shared + "/model.onnx", "kb"));

  // Young objects stay (a push stores its tree a moment before its version names it).
  const std::string young = stored_tree(s, "in flight");
  EXPECT_EQ(s.collect_garbage().first, 0);
  EXPECT_TRUE(tree_exists(s, young));

  const Store::Deleted gone = s.delete_model("p", "m");
  EXPECT_EQ(gone.versions, 1);
  EXPECT_EQ(gone.engines, 0);
  EXPECT_TRUE(s.models("p").empty());
  EXPECT_EQ(error_kind([&] { s.versions("p", "m"); }), Kind::NotFound);
  s.collect_garbage(std::chrono::seconds(0), std::chrono::seconds(0));
  EXPECT_FALSE(tree_exists(s, shared));
  EXPECT_EQ(error_kind([&] { s.delete_version("p", "m", 1); }), Kind::NotFound);
}

TEST_P(StoreTest, TagsDescriptionsRenamesAndGitAreRecorded) {
  Store& s = *this->store_;
  User u = s.create_user("u");
  s.create_project("p");
  NewVersion first = tree('a');
  first.git_sha = "0123456789abcdef";
  first.git_branch = "main";
  Version v1 = s.add_version("p", "m", first, u.id);
  Version v2 = s.add_version("p", "m", tree('b'), u.id);
  EXPECT_EQ(v1.git_sha, "0123456789abcdef");
  EXPECT_EQ(s.version("p", "m", 1)->git_branch, "main");
  EXPECT_EQ(s.version("p", "m", 2)->git_sha, "");

  s.set_tag("p", "m", "production", v1.number);
  EXPECT_EQ(s.version("p", "m", 1)->tags, std::vector<std::string>{"production"});
  s.set_tag("p", "m", "production", v2.number);  // a tag moves
  EXPECT_TRUE(s.version("p", "m", 1)->tags.empty());
  EXPECT_EQ(s.versions("p", "m")[0].tags, std::vector<std::string>{"production"});
  EXPECT_EQ(error_kind([&] { s.set_tag("p", "m", "bad tag", 1); }), Kind::Invalid);
  EXPECT_EQ(error_kind([&] { s.set_tag("p", "m", "x", 9); }), Kind::NotFound);
  // A tag names its version (tagged_version), and the model summary lists every tag with its version.
  s.set_tag("p", "m", "candidate", v1.number);
  EXPECT_EQ(s.tagged_version("p", "m", "candidate")->number, 1);
  EXPECT_EQ(s.tagged_version("p", "m", "production")->number, 2);
  EXPECT_FALSE(s.tagged_version("p", "m", "nope"));
  EXPECT_FALSE(s.tagged_version("p", "nope", "production"));
  ASSERT_EQ(s.models("p").size(), 1u);
  EXPECT_EQ(s.models("p")[0].tags,
            (std::vector<std::pair<std::string, int>>{{"candidate", 1}, {"production", 2}}));
  EXPECT_EQ(s.models("p")[0].latest.tags, std::vector<std::string>{"production"});
  // Digits only would read as a version number.
  EXPECT_EQ(error_kind([&] { s.set_tag("p", "m", "2", 1); }), Kind::Invalid);
  EXPECT_EQ(error_kind([&] { s.set_tag("p", "m", "007", 1); }), Kind::Invalid);
  s.set_tag("p", "m", "v2", 2);  // a name with digits is a name
  s.remove_tag("p", "m", "v2");
  s.remove_tag("p", "m", "candidate");
  s.remove_tag("p", "m", "production");
  EXPECT_TRUE(s.version("p", "m", 2)->tags.empty());
  EXPECT_EQ(error_kind([&] { s.remove_tag("p", "m", "production"); }), Kind::NotFound);

  s.set_description("p", "m", "the detector of the front camera");
  EXPECT_EQ(s.models("p")[0].description, "the detector of the front camera");
  s.add_version("p", "other", tree('c'), u.id);
  EXPECT_EQ(error_kind([&] { s.rename_model("p", "m", "other"); }), Kind::Conflict);
  EXPECT_EQ(error_kind([&] { s.rename_model("p", "m", "../x"); }), Kind::Invalid);
  s.rename_model("p", "m", "detector");
  EXPECT_EQ(s.versions("p", "detector").size(), 2u);
  EXPECT_EQ(error_kind([&] { s.versions("p", "m"); }), Kind::NotFound);

  Engine e = s.add_engine(v1.id, "fp16", std::string(64, '1'), "", u.id, "8.6", "engine metadata");
  EXPECT_EQ(s.engines(v1.id)[0].release, "8.6");
  EXPECT_EQ(s.engines(v1.id)[0].release_source, "engine metadata");
  s.relabel_engine(v1.id, e.number, "fp16 A100");
  EXPECT_EQ(s.engines(v1.id)[0].label, "fp16 A100");
}

}  // namespace
}  // namespace trtlens::store

namespace trtlens::store {
namespace {

using namespace trtlens::store::test;

// A data folder as trtlens with schema 2 left it (the tables as migrations 1 and 2 made them,
// one user with a token, a project, a version and an engine).
void write_schema_2(const fs::path& dir, const std::string& token_hash) {
  fs::create_directories(dir);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir / "trtlens.db").c_str(), &db), SQLITE_OK);
  const std::string sql =
      "CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (2);"
      "CREATE TABLE users (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, created_at BIGINT NOT NULL);"
      "CREATE TABLE tokens (id INTEGER PRIMARY KEY AUTOINCREMENT, user_id BIGINT NOT NULL REFERENCES users(id),"
      " hash TEXT NOT NULL UNIQUE, created_at BIGINT NOT NULL);"
      "CREATE TABLE projects (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, created_at BIGINT NOT NULL);"
      "CREATE TABLE grants (user_id BIGINT NOT NULL REFERENCES users(id), project_id BIGINT NOT NULL REFERENCES "
      " projects(id), role INTEGER NOT NULL, PRIMARY KEY (user_id, project_id));"
      "CREATE TABLE models (id INTEGER PRIMARY KEY AUTOINCREMENT, project_id BIGINT NOT NULL REFERENCES projects(id),"
      " name TEXT NOT NULL, last_number INTEGER NOT NULL DEFAULT 0, created_at BIGINT NOT NULL, UNIQUE (project_id, name));"
      "CREATE TABLE versions (id INTEGER PRIMARY KEY AUTOINCREMENT, model_id BIGINT NOT NULL REFERENCES models(id),"
      " number INTEGER NOT NULL, tree_hash TEXT NOT NULL, main_file TEXT NOT NULL, size_bytes BIGINT NOT NULL,"
      " opsets TEXT NOT NULL, created_at BIGINT NOT NULL, created_by BIGINT NOT NULL REFERENCES users(id),"
      " last_engine INTEGER NOT NULL DEFAULT 0, UNIQUE (model_id, number));"
      "CREATE TABLE engines (id INTEGER PRIMARY KEY AUTOINCREMENT, version_id BIGINT NOT NULL REFERENCES versions(id),"
      " number INTEGER NOT NULL, label TEXT NOT NULL, tree_hash TEXT NOT NULL, prefix TEXT NOT NULL,"
      " created_at BIGINT NOT NULL, created_by BIGINT NOT NULL REFERENCES users(id), UNIQUE (version_id, number));"
      "CREATE TABLE analyses (cache_key TEXT NOT NULL, kb TEXT NOT NULL, status TEXT NOT NULL, progress INTEGER NOT NULL,"
      " message TEXT NOT NULL, result_hash TEXT NOT NULL, updated_at BIGINT NOT NULL, PRIMARY KEY (cache_key, kb));"
      "CREATE TABLE sessions (hash TEXT PRIMARY KEY, user_id BIGINT NOT NULL REFERENCES users(id),"
      " expires_at BIGINT NOT NULL);"
      "INSERT INTO users (name, created_at) VALUES ('alice', 1);"
      "INSERT INTO projects (name, created_at) VALUES ('vision', 1);"
      "INSERT INTO grants VALUES (1, 1, 2);"
      "INSERT INTO models (project_id, name, last_number, created_at) VALUES (1, 'detector', 1, 1);"
      "INSERT INTO versions (model_id, number, tree_hash, main_file, size_bytes, opsets, created_at, created_by,"
      " last_engine) VALUES (1, 1, '" + std::string(64, 'a') + "', 'model.onnx', 10, 'ai.onnx:17', 1, 1, 1);"
      "INSERT INTO engines (version_id, number, label, tree_hash, prefix, created_at, created_by) VALUES (1, 1, 'fp16',"
      " '" + std::string(64, 'b') + "', 'm.onnx.engine', 1, 1);";
  std::string all = sql;
  all += "INSERT INTO tokens (user_id, hash, created_at) VALUES (1, '" + token_hash + "', 1);";
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, all.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

// A token for a new user alice made by a store of today in `scratch`, and the hash it stores
// (older schemas' databases are written with that hash, so the token must still sign in).
void token_of_alice(const fs::path& scratch, std::string& token, std::string& hash) {
  {
    auto s = Store::open(scratch);
    s->create_user("alice");
    token = s->issue_token("alice");
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((scratch / "trtlens.db").c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT hash FROM tokens", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  hash = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(db);
}

TEST(Store, MigrationFromSchema2KeepsEverythingAndAddsTheAdministration) {
  // A token made by a store of today, its hash written into a schema-2 database.
  std::string token, hash;
  ASSERT_NO_FATAL_FAILURE(token_of_alice(fresh_dir("store-migration-token"), token, hash));
  const fs::path dir = fresh_dir("store-migration-2-3");
  write_schema_2(dir, hash);
  auto s = Store::open(dir);
  auto user = s->user_for_token(token);
  ASSERT_TRUE(user);  // tokens of schema 2 still sign in
  EXPECT_EQ(s->role(user->id, "vision"), Role::Write);
  auto v = s->version("vision", "detector", 1);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->git_sha, "");
  EXPECT_TRUE(v->tags.empty());
  auto engines = s->engines(v->id);
  ASSERT_EQ(engines.size(), 1u);
  EXPECT_EQ(engines[0].release, "");  // not known: the overlay shows no disagreement
  auto tokens = s->tokens();
  ASSERT_EQ(tokens.size(), 1u);
  EXPECT_EQ(tokens[0].hint, "");  // issued before hints
  // The new columns and table work on the migrated database.
  s->set_tag("vision", "detector", "production", 1);
  s->set_description("vision", "detector", "front camera");
  EXPECT_EQ(s->models("vision")[0].description, "front camera");
  EXPECT_EQ(s->version("vision", "detector", 1)->tags, std::vector<std::string>{"production"});
  s->revoke_token(tokens[0].id);
  EXPECT_FALSE(s->user_for_token(token));
  s.reset();
  EXPECT_NO_THROW(Store::open(dir));  // migrated once: opening again changes nothing
}

// Schema 3 as trtlens left it: schema 2 plus migration 3's columns and tags table, a token
// with its hint, a tag and a session.
TEST(Store, MigrationFromSchema3KeepsTokensAndAddsAdminsRevocationAndPins) {
  std::string token, hash;
  ASSERT_NO_FATAL_FAILURE(token_of_alice(fresh_dir("store-migration-3-token"), token, hash));
  const fs::path dir = fresh_dir("store-migration-3-4");
  write_schema_2(dir, hash);
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir / "trtlens.db").c_str(), &db), SQLITE_OK);
    const std::string session_hash(64, 'c');
    const std::string sql =
        "ALTER TABLE tokens ADD COLUMN hint TEXT NOT NULL DEFAULT '';"
        "ALTER TABLE versions ADD COLUMN git_sha TEXT NOT NULL DEFAULT '';"
        "ALTER TABLE versions ADD COLUMN git_branch TEXT NOT NULL DEFAULT '';"
        "ALTER TABLE versions ADD COLUMN io TEXT NOT NULL DEFAULT '';"
        "ALTER TABLE models ADD COLUMN description TEXT NOT NULL DEFAULT '';"
        "ALTER TABLE engines ADD COLUMN trt_release TEXT NOT NULL DEFAULT '';"
        "ALTER TABLE engines ADD COLUMN trt_release_source TEXT NOT NULL DEFAULT '';"
        "CREATE TABLE tags (model_id BIGINT NOT NULL REFERENCES models(id), name TEXT NOT NULL,"
        " version_id BIGINT NOT NULL REFERENCES versions(id), PRIMARY KEY (model_id, name));"
        "UPDATE schema_version SET version = 3;"
        "UPDATE tokens SET hint = '…" + token.substr(64) + "';"
        "INSERT INTO tags VALUES (1, 'production', 1);"
        "INSERT INTO sessions VALUES ('" + session_hash + "', 1, 99999999999);";
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
    sqlite3_free(error);
    sqlite3_close(db);
  }
  auto s = Store::open(dir);
  {
    // Its sessions ended: they do not know the token they signed in with, so no revocation could end them.
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir / "trtlens.db").c_str(), &db), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM sessions", -1, &st, nullptr), SQLITE_OK);
    ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
    EXPECT_EQ(sqlite3_column_int(st, 0), 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
  }
  auto user = s->user_for_token(token);
  ASSERT_TRUE(user);  // tokens of schema 3 still sign in
  EXPECT_FALSE(user->admin);  // nobody is an administrator until promoted
  auto tokens = s->tokens();
  ASSERT_EQ(tokens.size(), 1u);
  EXPECT_EQ(tokens[0].hint, "…" + token.substr(64));
  EXPECT_EQ(tokens[0].revoked_at, 0);
  EXPECT_GT(tokens[0].last_used_at, 0);  // just now
  EXPECT_EQ(s->version("vision", "detector", 1)->tags, std::vector<std::string>{"production"});
  EXPECT_TRUE(s->project_pins("vision").empty());  // the server's, as before
  // The new columns work on the migrated database.
  s->set_admin("alice", true);
  EXPECT_TRUE(s->user_for_token(token)->admin);
  s->set_project_pins("vision", {"8.6:fp16"});
  EXPECT_EQ(s->projects()[0].pins, std::vector<std::string>{"8.6:fp16"});
  s->revoke_token(tokens[0].id);
  EXPECT_FALSE(s->user_for_token(token));
  EXPECT_GT(s->tokens()[0].revoked_at, 0);
  s.reset();
  EXPECT_NO_THROW(Store::open(dir));  // migrated once: opening again changes nothing
}

}  // namespace
}  // namespace trtlens::store
