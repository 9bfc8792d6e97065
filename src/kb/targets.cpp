// Loads data/targets/: target families, DLA restrictions per release, the importer's op -> layer map.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <set>

#include "trtlens/error.h"
#include "trtlens/target.h"
#include "util/embedded.h"
#include "util/strings.h"

namespace trtlens {
namespace {

// "8.5" -> (8, 5); (-1, -1) when malformed.
std::pair<int, int> version_of(std::string_view text) {
  auto parts = split(text, '.');
  if (parts.size() != 2) return {-1, -1};
  int a = -1, b = -1;
  auto [p1, e1] = std::from_chars(parts[0].data(), parts[0].data() + parts[0].size(), a);
  auto [p2, e2] = std::from_chars(parts[1].data(), parts[1].data() + parts[1].size(), b);
  if (e1 != std::errc() || e2 != std::errc() || p1 != parts[0].data() + parts[0].size() ||
      p2 != parts[1].data() + parts[1].size() || a < 0 || b < 0)
    return {-1, -1};
  return {a, b};
}

bool valid_range(std::string_view range) {
  if (range == "-") return true;
  size_t dots = range.find("..");
  if (dots == std::string_view::npos) return version_of(range).first >= 0;
  std::string_view lo = range.substr(0, dots), hi = range.substr(dots + 2);
  return (lo.empty() || version_of(lo).first >= 0) && (hi.empty() || version_of(hi).first >= 0) &&
         !(lo.empty() && hi.empty());
}

// A well-formed range that holds no release ("11.5..11.4"): a typo that would silently drop the row.
bool empty_range(std::string_view range) {
  size_t dots = range.find("..");
  if (dots == std::string_view::npos) return false;
  std::string_view lo = range.substr(0, dots), hi = range.substr(dots + 2);
  return !lo.empty() && !hi.empty() && version_of(hi) < version_of(lo);
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The data rows of a TSV file: comment and header lines dropped, each row split on tabs
// into exactly `columns` fields (the line number kept for errors).
std::vector<std::pair<int, std::vector<std::string_view>>> rows_of(std::string_view path, std::string_view text,
                                                                   size_t columns, std::string_view header) {
  std::vector<std::pair<int, std::vector<std::string_view>>> out;
  int line_no = 0;
  bool seen_header = false;
  for (std::string_view line : split(text, '\n')) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    if (!seen_header) {
      if (line != header)
        throw InputError(std::string(path), fmt::format("line {}: expected the header '{}'", line_no, header));
      seen_header = true;
      continue;
    }
    auto fields = split(line, '\t');
    if (fields.size() != columns)
      throw InputError(std::string(path),
                       fmt::format("line {}: {} fields, expected {}", line_no, fields.size(), columns));
    for (auto f : fields)
      if (f.empty()) throw InputError(std::string(path), fmt::format("line {}: an empty field (write -)", line_no));
    out.emplace_back(line_no, std::move(fields));
  }
  if (!seen_header) throw InputError(std::string(path), "no header line");
  return out;
}

const std::set<std::string, std::less<>> kPrecisionNames = {"FP32", "TF32", "FP16", "BF16", "INT8", "FP8", "FP4"};
const std::set<std::string, std::less<>> kDlaChecks = {
    "supported", "static", "max_batch",   "max_dim",  "precision",    "loadables", "spatial",      "rank",
    "kernel",    "stride", "padding",     "dilation", "groups",       "window",    "out_channels", "pad_lt_kernel",
    "modes",     "clip",   "const_input", "axis",     "same_spatial", "broadcast", "attr",         "steps",
    "keep_axis", "scales", "stride_is_kernel", "mode_precision"};

// An `alias` row: another name --target takes for a target ("agx-orin" -> "orin"), checked once every file is read.
struct AliasRow {
  std::string name, target, where;
};

void parse_family(std::string_view path, std::string_view text, std::vector<Target>& out,
                  std::vector<AliasRow>& aliases) {
  std::string family(path.substr(path.rfind('/') + 1));
  family = family.substr(0, family.size() - 4);
  size_t first = out.size();
  std::vector<std::pair<std::string, TargetRow>> precisions, runs, ships;  // keyed by cc
  for (auto& [no, f] : rows_of(path, text, 6, "kind\tname\tvalue\treleases\tnote\tsource")) {
    auto bad = [path, no = no](const std::string& what) {
      return InputError(std::string(path), fmt::format("line {}: {}", no, what));
    };
    std::string_view kind = f[0];
    if (kind == "device" || kind == "dla_device") {
      if (version_of(f[2]).first < 0) throw bad(fmt::format("compute capability '{}' is not MAJOR.MINOR", f[2]));
      Target t;
      t.name = lower(f[1]);
      t.family = family;
      t.cc = std::string(f[2]);
      t.dla = kind == "dla_device";
      t.row = no;
      t.device = std::string(f[4]);
      t.source = std::string(f[5]);
      out.push_back(std::move(t));
      continue;
    }
    if (kind == "alias") {
      if (f[3] != "-") throw bad("an alias row holds for every release (write - as its releases)");
      aliases.push_back({lower(f[1]), lower(f[2]), fmt::format("{}: line {}", path, no)});
      continue;
    }
    if (!valid_range(f[3])) throw bad(fmt::format("release range '{}' is not R, A..B, A.. or -", f[3]));
    if (empty_range(f[3]))
      throw bad(fmt::format("release range '{}' holds no release (its end is before its start)", f[3]));
    if (version_of(f[1]).first < 0) throw bad(fmt::format("compute capability '{}' is not MAJOR.MINOR", f[1]));
    TargetRow row{std::string(f[2]), std::string(f[3]), std::string(f[4]), std::string(f[5])};
    if (kind == "precisions") {
      for (auto p : split(f[2], ','))
        if (!kPrecisionNames.count(p)) throw bad(fmt::format("unknown precision '{}'", p));
      precisions.emplace_back(std::string(f[1]), std::move(row));
    } else if (kind == "runs") {
      runs.emplace_back(std::string(f[1]), std::move(row));
    } else if (kind == "ships") {
      if (version_of(f[3]).first < 0) throw bad("a ships row names one release");
      row.value = std::string(f[3]);
      ships.emplace_back(std::string(f[1]), std::move(row));
    } else {
      throw bad(fmt::format("unknown kind '{}'; use device, dla_device, precisions, runs, ships or alias", kind));
    }
  }
  for (size_t i = first; i < out.size(); ++i) {
    Target& t = out[i];
    for (auto& [cc, row] : precisions)
      if (cc == t.cc) t.precisions.push_back(row);
    for (auto& [cc, row] : runs)
      if (cc == t.cc) t.runs.push_back(row);
    for (auto& [cc, row] : ships)
      if (cc == t.cc) t.ships.push_back(row);
    if (t.runs.empty() && t.ships.empty())
      throw InputError(std::string(path), fmt::format("target {} (cc {}) has no runs or ships row", t.name, t.cc));
  }
}

bool is_int(std::string_view s) {
  int64_t v = 0;
  auto [p, e] = std::from_chars(s.data(), s.data() + s.size(), v);
  return !s.empty() && e == std::errc() && p == s.data() + s.size();
}

bool is_int_range(std::string_view s) {
  size_t dots = s.find("..");
  return dots != std::string_view::npos && is_int(s.substr(0, dots)) && is_int(s.substr(dots + 2));
}

// The argument form of the newer checks (Slice steps and axes, Resize scales, per-operation precisions), checked
// when the file is read so a malformed row is an InputError naming its line, not a failure while judging a node.
// "" = fine.
std::string bad_args(std::string_view check, std::string_view args) {
  if (check == "steps" || check == "keep_axis")
    return is_int(args) ? "" : fmt::format("check '{}' takes an integer, got '{}'", check, args);
  if (check == "stride_is_kernel") return args == "-" ? "" : "check 'stride_is_kernel' takes no argument (write -)";
  if (check == "mode_precision") {
    size_t colon = args.find(':');
    bool ok = colon != 0 && colon != std::string_view::npos && colon + 1 < args.size();
    for (auto p : ok ? split(args.substr(colon + 1), '|') : std::vector<std::string_view>{})
      ok = ok && kPrecisionNames.count(p);
    return ok ? "" : fmt::format("check 'mode_precision' takes MODE|MODE:PRECISION|PRECISION, got '{}'", args);
  }
  if (check == "scales") {
    for (auto part : split(args, ',')) {
      size_t colon = part.find(':');
      if (colon == 0 || colon == std::string_view::npos || !is_int_range(part.substr(colon + 1)))
        return fmt::format("check 'scales' takes MODE:A..B[,MODE:A..B...], got '{}'", args);
    }
  }
  return "";
}

DlaRules parse_dla(std::string_view path, std::string_view text) {
  std::string name(path.substr(path.rfind('/') + 1));
  DlaRules rules;
  rules.release = name.substr(0, name.size() - 4);
  if (version_of(rules.release).first < 0) throw InputError(std::string(path), "the file name is not <release>.tsv");
  for (auto& [no, f] : rows_of(path, text, 5, "layer\tcheck\targs\tdevices\tsource")) {
    if (!kDlaChecks.count(f[1]))
      throw InputError(std::string(path), fmt::format("line {}: unknown check '{}'", no, f[1]));
    if (std::string why = bad_args(f[1], f[2]); !why.empty())
      throw InputError(std::string(path), fmt::format("line {}: {}", no, why));
    rules.checks.push_back(
        {std::string(f[0]), std::string(f[1]), std::string(f[2]), std::string(f[3]), std::string(f[4])});
  }
  return rules;
}

std::vector<LayerMapping> parse_layers(std::string_view path, std::string_view text) {
  std::vector<LayerMapping> out;
  for (auto& [no, f] : rows_of(path, text, 5, "op\tlayers\tmode\twhen\twhere")) {
    LayerMapping m;
    m.op = std::string(f[0]);
    for (auto l : split(f[1], ',')) m.layers.emplace_back(l);
    m.mode = std::string(f[2]);
    if (f[3] != "-") {
      std::string_view w = f[3];
      if (!w.starts_with("const_inputs(") || !w.ends_with(")"))
        throw InputError(std::string(path), fmt::format("line {}: `when` is - or const_inputs(I,...)", no));
      for (auto i : split(w.substr(13, w.size() - 14), ',')) {
        int v = -1;
        auto [p, e] = std::from_chars(i.data(), i.data() + i.size(), v);
        if (e != std::errc() || v < 0) throw InputError(std::string(path), fmt::format("line {}: bad input index", no));
        m.const_inputs.push_back(v);
      }
    }
    m.where = std::string(f[4]);
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace

bool TargetRow::covers(const Release& r) const {
  if (releases == "-") return true;
  std::pair<int, int> v{r.major, r.minor};
  size_t dots = releases.find("..");
  if (dots == std::string::npos) return version_of(releases) == v;
  std::string_view lo = std::string_view(releases).substr(0, dots), hi = std::string_view(releases).substr(dots + 2);
  return (lo.empty() || version_of(lo) <= v) && (hi.empty() || v <= version_of(hi));
}

const TargetRow* Target::precisions_at(const Release& r) const {
  for (const auto& row : precisions)
    if (row.covers(r)) return &row;
  return nullptr;
}

bool Target::runs_release(const Release& r) const {
  auto covers = [&](const TargetRow& row) { return row.covers(r); };
  return std::any_of(ships.begin(), ships.end(), covers) || std::any_of(runs.begin(), runs.end(), covers);
}

std::string Target::label() const {
  std::string sm = cc;
  sm.erase(std::remove(sm.begin(), sm.end(), '.'), sm.end());
  return fmt::format("{} ({}, sm_{})", name, device, sm);
}

TargetCatalog TargetCatalog::parse(const std::vector<std::pair<std::string_view, std::string_view>>& files) {
  TargetCatalog c;
  std::vector<AliasRow> aliases;
  for (const auto& [path, text] : files) {
    if (!path.ends_with(".tsv")) continue;
    if (path.find("/dla/") != std::string_view::npos)
      c.dla_.push_back(parse_dla(path, text));
    else if (path.ends_with("/layers.tsv"))
      c.layers_ = parse_layers(path, text);
    else
      parse_family(path, text, c.targets_, aliases);
  }
  std::set<std::string, std::less<>> names;
  for (const auto& t : c.targets_)
    if (!names.insert(t.name).second) throw InputError("data/targets", fmt::format("target {} defined twice", t.name));
  const std::set<std::string, std::less<>> target_names = names;  // an alias names a target, never another alias
  for (AliasRow& a : aliases) {
    if (!target_names.count(a.target))
      throw InputError(a.where, fmt::format("alias {} names no target '{}'", a.name, a.target));
    if (!names.insert(a.name).second)
      throw InputError(a.where, fmt::format("alias {} is already a target or alias name", a.name));
    c.aliases_.push_back({std::move(a.name), std::move(a.target), std::move(a.where)});
  }
  std::sort(c.targets_.begin(), c.targets_.end(), [](const Target& a, const Target& b) { return a.name < b.name; });
  // DLA releases in release order (8.2 before 10.3), as messages list them.
  auto numbers = [](const std::string& release) {
    std::vector<int> out;
    for (auto part : split(release, '.')) {
      int v = 0;
      std::from_chars(part.data(), part.data() + part.size(), v);
      out.push_back(v);
    }
    return out;
  };
  std::sort(c.dla_.begin(), c.dla_.end(),
            [&](const DlaRules& a, const DlaRules& b) { return numbers(a.release) < numbers(b.release); });
  return c;
}

const TargetCatalog& TargetCatalog::builtin() {
  static const TargetCatalog catalog = [] {
    std::vector<std::pair<std::string_view, std::string_view>> files;
    for (const EmbeddedFile& f : embedded_files())
      if (f.path.starts_with("data/targets/")) files.emplace_back(f.path, f.contents);
    try {
      return parse(files);
    } catch (const InputError& e) {
      throw std::runtime_error(std::string("embedded target catalog: ") + e.what());
    }
  }();
  return catalog;
}

const Target& TargetCatalog::resolve(std::string_view text) const {
  // `--target ""` would otherwise read as no target at all: say so instead.
  if (text.empty())
    throw UsageError("an empty target; give a device (h100, orin, ...), an alias (agx-orin) or a compute capability "
                     "(sm_89)");
  std::string want = lower(text);
  for (const auto& a : aliases_)
    if (a.name == want) want = a.target;
  for (const auto& t : targets_)
    if (t.name == want) return t;
  // A compute capability: "sm_89", "sm89", "8.9"; "sm_90a" and "sm_100f" (CUDA's arch- and family-specific
  // targets) run on the base capability.
  std::string cc = want;
  if (cc.starts_with("sm")) {
    cc = cc.substr(cc.starts_with("sm_") ? 3 : 2);
    if (cc.size() > 2 && (cc.back() == 'a' || cc.back() == 'f')) cc.pop_back();
  }
  if (cc.find('.') == std::string::npos && cc.size() >= 2) cc.insert(cc.size() - 1, ".");
  // The family file's first device of that capability (a100 for sm_80, h100 for sm_90, t4 for sm_75), not the
  // first by name (gh200, rtx2080): the files list the data-centre part first.
  const Target* first = nullptr;
  if (version_of(cc).first >= 0)
    for (const auto& t : targets_)
      if (!t.dla && t.cc == cc && (!first || t.row < first->row)) first = &t;
  if (first) return *first;
  std::string known;
  for (const auto& t : targets_) known += (known.empty() ? "" : ", ") + t.name;
  throw UsageError(fmt::format("unknown target '{}'; known: {} (or a compute capability such as sm_89 of one of them, "
                               "or an alias such as agx-orin: docs/targets.md)",
                               text, known));
}

void TargetCatalog::check_release(const Target& t, const Release& r) const {
  if (!t.runs_release(r)) {
    // A Jetson names each release with its JetPack (ships rows), then each range it runs beyond them with how
    // (runs rows: "11.4.. (JetPack 7.2.2 or later, ...)"); a GPU names its ranges only.
    std::string runs;
    auto add = [&runs](std::string_view what, std::string_view note) {
      runs += fmt::format("{}{}", runs.empty() ? "" : ", ", what);
      if (!note.empty()) runs += fmt::format(" ({})", note);
    };
    for (const auto& row : t.ships) add(row.value, row.note);
    for (const auto& row : t.runs) add(row.releases, t.ships.empty() ? "" : row.note);
    throw UsageError(fmt::format("TensorRT {} does not run on {}: it runs TensorRT {} (data/targets/{}.tsv)", r.name,
                                 t.label(), runs, t.family));
  }
  if (t.dla && !dla_rules(r.name)) {
    std::string have;
    for (const auto& d : dla_) have += (have.empty() ? "" : ", ") + d.release;
    throw UsageError(fmt::format("no DLA facts for TensorRT {} (target {}): data/targets/dla has {}", r.name, t.name,
                                 have.empty() ? "none" : have));
  }
}

const Release* TargetCatalog::newest_release(const Target& t, const KnowledgeBase& kb) const {
  // A Jetson defaults to the newest release its JetPack ships: a board runs the TensorRT of the JetPack it was
  // flashed with, and a later SBSA build (a runs row) needs a newer JetPack, so it is asked for with --trt.
  auto newest_of = [&](const std::vector<TargetRow>& rows) -> const Release* {
    const auto& rs = kb.releases();
    for (auto it = rs.rbegin(); it != rs.rend(); ++it)
      if (std::any_of(rows.begin(), rows.end(), [&](const TargetRow& row) { return row.covers(*it); }) &&
          (!t.dla || dla_rules(it->name)))
        return &*it;
    return nullptr;
  };
  const Release* shipped = newest_of(t.ships);
  return shipped ? shipped : newest_of(t.runs);
}

const DlaRules* TargetCatalog::dla_rules(std::string_view release) const {
  for (const auto& d : dla_)
    if (d.release == release) return &d;
  return nullptr;
}

}  // namespace trtlens
