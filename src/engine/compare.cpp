// Side-by-side comparison of several plans (TREx's compare_engines notebook):
// totals, end-to-end figures, groups per type and precision, and the layer
// diff of layers aligned across plans.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <unordered_map>

#include "engine/internal.h"
#include "trtlens/engine.h"

namespace trtlens {

namespace {

// TREx aligns layers by type and tensor shapes: names change between builds
// (Q/DQ placement renames every fused layer) while the network's shapes do not.
std::string signature(const EngineLayer& l) {
  std::string s = l.type;
  for (const auto* ts : {&l.inputs, &l.outputs}) {
    s += ts == &l.inputs ? '|' : '>';
    for (const auto& t : *ts) s += engine_detail::dims_text(t.dims) + ';';
  }
  return s;
}

// Pairs (i in a, j in b) of equal ids, increasing in both: a longest common
// subsequence after stripping the common prefix and suffix, or a greedy
// in-order match when the table would pass kMaxCells.
constexpr size_t kMaxCells = size_t{1} << 22;

std::vector<std::pair<int, int>> align(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<std::pair<int, int>> out;
  size_t lo = 0, ha = a.size(), hb = b.size();
  while (lo < ha && lo < hb && a[lo] == b[lo]) out.emplace_back(lo, lo), ++lo;
  std::vector<std::pair<int, int>> tail;
  while (ha > lo && hb > lo && a[ha - 1] == b[hb - 1]) --ha, --hb, tail.emplace_back(ha, hb);
  const size_t n = ha - lo, m = hb - lo;
  if (n > 0 && m > 0 && (n + 1) * (m + 1) <= kMaxCells) {
    // len[i][j]: LCS of a[lo+i..] and b[lo+j..]; walked forwards to emit pairs.
    std::vector<uint32_t> len((n + 1) * (m + 1), 0);
    auto at = [&](size_t i, size_t j) -> uint32_t& { return len[i * (m + 1) + j]; };
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;)
        at(i, j) = a[lo + i] == b[lo + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    size_t i = 0, j = 0;
    while (i < n && j < m) {
      if (a[lo + i] == b[lo + j]) out.emplace_back(lo + i++, lo + j++);
      else if (at(i + 1, j) >= at(i, j + 1)) ++i;
      else ++j;
    }
  } else if (n > 0 && m > 0) {
    std::unordered_map<int, std::vector<int>> where;  // id → positions in b, descending
    for (size_t j = hb; j-- > lo;) where[b[j]].push_back(static_cast<int>(j));
    int cursor = static_cast<int>(lo);
    for (size_t i = lo; i < ha; ++i) {
      auto it = where.find(a[i]);
      if (it == where.end()) continue;
      auto& v = it->second;
      while (!v.empty() && v.back() < cursor) v.pop_back();
      if (v.empty()) continue;
      out.emplace_back(static_cast<int>(i), v.back());
      cursor = v.back() + 1;
      v.pop_back();
    }
  }
  out.insert(out.end(), tail.rbegin(), tail.rend());
  return out;
}

std::string formats(const EngineLayer& l) {
  std::string s;
  for (const auto* ts : {&l.inputs, &l.outputs})
    for (const auto& t : *ts) s += t.precision + t.layout + ';';
  return s;
}

std::string tactic_of(const EngineLayer& l) { return l.tactic.empty() ? l.tactic_value : l.tactic; }

}  // namespace

// TREx's get_io_precisions: every tensor's precision joined with ", ", the
// tensors as graph.json wrote them
// (release/10.16:tools/experimental/trt-engine-explorer/trex/compare_engines.py:280).
std::string input_precisions(const EngineLayer& l) {
  std::string s;
  for (const auto& t : l.inputs_as_written()) s += (s.empty() ? "" : ", ") + (t.precision.empty() ? std::string("?") : t.precision);
  return s;
}
std::string output_precisions(const EngineLayer& l) {
  std::string s;
  for (const auto& t : l.outputs_as_written()) s += (s.empty() ? "" : ", ") + (t.precision.empty() ? std::string("?") : t.precision);
  return s;
}

namespace {

}  // namespace

std::vector<std::string> plan_labels(const std::vector<const EnginePlan*>& plans, const std::vector<std::string>& given) {
  const size_t n = plans.size();
  std::vector<std::string> base(n), out(n);
  for (size_t p = 0; p < n; ++p) base[p] = p < given.size() && !given[p].empty() ? given[p] : plans[p]->name;
  out = base;
  for (size_t p = 0; p < n; ++p) {
    if (p < given.size() && !given[p].empty()) continue;
    std::string folder = std::filesystem::path(plans[p]->files.graph).parent_path().filename().string();
    for (size_t q = 0; q < n; ++q)
      if (q != p && base[q] == base[p] && !folder.empty()) out[p] = folder + "/" + base[p];
  }
  for (size_t p = 0; p < n; ++p)
    for (size_t q = 0; q < p; ++q)
      if (out[p] == out[q]) out[p] = fmt::format("{} ({})", out[p], p + 1);
  return out;
}

EndToEnd end_to_end(const EnginePlan& plan) {
  EndToEnd e;
  e.layers_ms = plan.total_latency_ms();
  if (plan.timing && plan.timing->iterations > 0) {
    e.median_ms = plan.timing->median_ms;
    e.mean_ms = plan.timing->mean_ms;
  }
  if (plan.perf) {
    e.throughput_qps = plan.perf->throughput_qps;
    if (plan.perf->latency) {
      e.trtexec_mean_ms = plan.perf->latency->mean;
      e.trtexec_median_ms = plan.perf->latency->median;
    }
  }
  return e;
}

PlanComparison compare_plans(const std::vector<const EnginePlan*>& plans, const std::vector<std::string>& labels) {
  PlanComparison c;
  c.plans = plans;
  c.labels = plan_labels(plans, labels);
  const size_t n = plans.size();
  std::map<std::string, size_t> type_ix, prec_ix;
  for (size_t p = 0; p < n; ++p) {
    c.end_to_end.push_back(end_to_end(*plans[p]));
    c.total_ms.push_back(plans[p]->total_latency_ms());
    c.layer_counts.push_back(static_cast<int>(plans[p]->layers.size()));
    for (const auto& l : plans[p]->layers) {
      auto [ti, tnew] = type_ix.emplace(l.type, c.types.size());
      if (tnew) {
        c.types.push_back(l.type);
        c.type_ms.emplace_back(n, 0.0);
        c.type_count.emplace_back(n, 0);
      }
      c.type_ms[ti->second][p] += l.avg_ms;
      ++c.type_count[ti->second][p];
      std::string pr = l.precision.empty() ? "none" : l.precision;
      auto [pi, pnew] = prec_ix.emplace(pr, c.precisions.size());
      if (pnew) {
        c.precisions.push_back(pr);
        c.precision_ms.emplace_back(n, 0.0);
        c.precision_count.emplace_back(n, 0);
      }
      c.precision_ms[pi->second][p] += l.avg_ms;
      ++c.precision_count[pi->second][p];
    }
  }
  // Order types by latency summed over all plans, largest first.
  std::vector<size_t> perm(c.types.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = i;
  auto sum = [&](const std::vector<double>& v) { double s = 0; for (double x : v) s += x; return s; };
  std::stable_sort(perm.begin(), perm.end(), [&](size_t a, size_t b) { return sum(c.type_ms[a]) > sum(c.type_ms[b]); });
  auto permute = [&](auto& v) {
    auto old = v;
    for (size_t i = 0; i < perm.size(); ++i) v[i] = std::move(old[perm[i]]);
  };
  permute(c.types);
  permute(c.type_ms);
  permute(c.type_count);
  if (n == 0) return c;

  // Layer rows: plan 0's layers, then each other plan aligned with it.
  std::unordered_map<std::string, int> sig_id;
  auto ids = [&](const EnginePlan& plan) {
    std::vector<int> v;
    v.reserve(plan.layers.size());
    for (const auto& l : plan.layers) v.push_back(sig_id.emplace(signature(l), static_cast<int>(sig_id.size())).first->second);
    return v;
  };
  const auto& base = plans[0]->layers;
  const std::vector<int> base_ids = ids(*plans[0]);
  std::vector<std::vector<int>> row_of(n);                 // [plan][layer] → row in plan 0's order
  std::vector<std::vector<int>> at(base.size(), std::vector<int>(n, -1));  // [plan-0 row][plan] → layer
  std::vector<std::string> how(base.size());
  for (size_t i = 0; i < base.size(); ++i) at[i][0] = static_cast<int>(i);
  for (size_t p = 1; p < n; ++p) {
    const auto& other = plans[p]->layers;
    row_of[p].assign(other.size(), -1);
    for (auto [i, j] : align(base_ids, ids(*plans[p]))) {
      at[i][p] = j;
      row_of[p][j] = i;
      how[i] = "signature";
    }
    std::unordered_map<std::string, int> free_base;
    for (size_t i = 0; i < base.size(); ++i)
      if (at[i][p] < 0) free_base.emplace(base[i].name, static_cast<int>(i));
    for (size_t j = 0; j < other.size(); ++j) {
      if (row_of[p][j] >= 0) continue;
      auto it = free_base.find(other[j].name);
      if (it == free_base.end()) continue;
      at[it->second][p] = static_cast<int>(j);
      row_of[p][j] = it->second;
      if (how[it->second].empty()) how[it->second] = "name";
      free_base.erase(it);
    }
  }
  auto make_row = [&](std::vector<int> index, std::string by) {
    LayerMatch m;
    m.index = std::move(index);
    m.matched_by = std::move(by);
    m.avg_ms.assign(n, std::nullopt);
    const EngineLayer* first = nullptr;
    int present = 0;
    for (size_t p = 0; p < n; ++p) {
      if (m.index[p] < 0) continue;
      const auto& l = plans[p]->layers[m.index[p]];
      ++present;
      if (l.timed || !plans[p]->has_profile) m.avg_ms[p] = l.avg_ms;
      if (!first) {
        first = &l;
        m.name = l.name;
        m.type = l.type;
        continue;
      }
      m.input_precision_differs |= input_precisions(l) != input_precisions(*first);
      m.output_precision_differs |= output_precisions(l) != output_precisions(*first);
      m.precision_differs = m.input_precision_differs || m.output_precision_differs;
      m.tactic_differs |= tactic_of(l) != tactic_of(*first);
      m.format_differs |= formats(l) != formats(*first);
    }
    if (present < 2) m.matched_by.clear();
    c.matched_in_all += present == static_cast<int>(n);
    c.layers.push_back(std::move(m));
  };
  // Unmatched layers of plan p follow the row of their nearest earlier matched layer.
  std::vector<std::vector<std::pair<size_t, int>>> extras(base.size() + 1);  // [row + 1] → (plan, layer)
  for (size_t p = 1; p < n; ++p) {
    int anchor = -1;
    for (size_t j = 0; j < row_of[p].size(); ++j) {
      if (row_of[p][j] >= 0) anchor = std::max(anchor, row_of[p][j]);
      else extras[static_cast<size_t>(anchor + 1)].emplace_back(p, static_cast<int>(j));
    }
  }
  auto emit_extras = [&](size_t slot) {
    for (auto [p, j] : extras[slot]) {
      std::vector<int> index(n, -1);
      index[p] = j;
      make_row(std::move(index), "");
    }
  };
  emit_extras(0);
  for (size_t i = 0; i < base.size(); ++i) {
    make_row(at[i], how[i]);
    emit_extras(i + 1);
  }
  return c;
}

}  // namespace trtlens
